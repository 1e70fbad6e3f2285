// `covkit trace record [OPTIONS] [--] PROG [ARGS...]`: runs PROG with the
// tracing runtime preloaded and its settings in the environment, waits for
// it, and summarizes what was written.
#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <signal.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <optional>
#include <set>
#include <string>
#include <system_error>
#include <vector>

#include "cli/trace_command.h"
#include "format/trace_stream_decoder.h"
#include "trace/record_support.h"
#include "util/file_io.h"
#include "util/printable.h"

extern char** environ;

namespace covkit::cli {

namespace {

namespace fs = std::filesystem;

constexpr const char* kRuntimeName = "libcovkit-trace.so";
constexpr const char* kDefaultDir = "covkit-trace.data";

constexpr const char* kDescription =
    "Runs PROG with ARGS, recording every call of its functions built with\n"
    "-finstrument-functions (GCC or Clang), in PROG and in the libraries it\n"
    "loads. The tracing runtime (libcovkit-trace.so, found next to covkit) is\n"
    "preloaded with LD_PRELOAD; each thread writes its own stream into the\n"
    "trace directory, so recording costs a few bytes and nanoseconds per call.\n"
    "Children that PROG forks are traced too (their own files in the same\n"
    "directory); programs it executes are traced when they are instrumented.\n"
    "\n"
    "The trace directory is created if needed. A directory that holds a\n"
    "previous trace is cleared first (its .ckt and .meta files); a non-empty\n"
    "directory holding anything else is refused.\n"
    "\n"
    "PROG's standard input, output and error are its own; covkit writes one\n"
    "summary line on stderr when PROG ends, and exits with PROG's exit status\n"
    "(128 + the signal number when a signal killed it).\n";

constexpr const char* kFooter =
    "Environment given to PROG (the runtime's settings):\n"
    "  LD_PRELOAD=<dir of covkit>/libcovkit-trace.so (before any LD_PRELOAD already set)\n"
    "  COVKIT_TRACE_DIR           the trace directory (absolute)\n"
    "  COVKIT_TRACE_MAX_DEPTH     from --max-depth\n"
    "  COVKIT_TRACE_MIN_TIME_NS   from --min-time\n"
    "\n"
    "Exit status: PROG's; 128 + N when signal N killed it; 127 when PROG cannot be\n"
    "found or run, 1 on covkit's own errors (one line on stderr).\n"
    "\n"
    "Examples:\n"
    "  covkit trace record -- ./prog input.txt\n"
    "  covkit trace record -o /tmp/t --max-depth 20 --min-time 10us -- make check\n"
    "  covkit trace record --static -- ./prog-linked-with-the-runtime";

// CLI11 2.1 has no custom usage line; the program and its arguments are
// not CLI11 options (they are never parsed), so the line says so here.
class RecordFormatter : public CLI::Formatter {
 public:
  std::string make_usage(const CLI::App*, std::string) const override {
    return "Usage: covkit trace record [OPTIONS] [--] PROG [ARGS...]\n";
  }
};

int fail(const std::string& what) {
  std::fprintf(stderr, "covkit trace record: %s\n", what.c_str());
  return 1;
}

std::string human_bytes(uint64_t n) {
  if (n < 1024) return fmt::format("{} B", n);
  if (n < 1024 * 1024) return fmt::format("{:.1f} KiB", n / 1024.0);
  if (n < uint64_t(1024) * 1024 * 1024) return fmt::format("{:.1f} MiB", n / (1024.0 * 1024));
  return fmt::format("{:.2f} GiB", n / (1024.0 * 1024 * 1024));
}

// The runtime next to the covkit executable (build tree), or in ../lib
// (installed).
std::optional<std::string> find_runtime() {
  std::error_code ec;
  fs::path self = fs::read_symlink("/proc/self/exe", ec);
  if (ec) return std::nullopt;
  fs::path dir = self.parent_path();
  for (const fs::path& p : {dir / kRuntimeName, dir / ".." / "lib" / kRuntimeName,
                            dir / ".." / "lib" / "covkit" / kRuntimeName}) {
    if (fs::is_regular_file(p, ec)) return fs::weakly_canonical(p, ec).string();
  }
  return std::nullopt;
}

bool trace_file(const fs::path& p) {
  std::string ext = p.extension().string();
  return ext == ".ckt" || ext == ".meta";
}

// Creates DIR, or empties it of a previous trace; refuses anything else.
std::optional<std::string> prepare_dir(const std::string& dir) {
  std::error_code ec;
  if (!fs::exists(dir, ec)) {
    fs::create_directories(dir, ec);
    if (ec) return fmt::format("{}: cannot create the directory: {}", util::printable(dir), ec.message());
    return std::nullopt;
  }
  if (!fs::is_directory(dir, ec)) return fmt::format("{}: exists and is not a directory", util::printable(dir));
  std::vector<fs::path> old;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    std::error_code type_ec;
    if (!it->is_regular_file(type_ec) || !trace_file(it->path()))
      return fmt::format(
          "{}: not empty and not a trace directory (it holds {}); give another -o or empty it",
          util::printable(dir), util::printable(it->path().filename().string()));
    old.push_back(it->path());
  }
  if (ec) return fmt::format("{}: cannot read the directory: {}", util::printable(dir), ec.message());
  for (const fs::path& p : old) {
    fs::remove(p, ec);
    if (ec) return fmt::format("{}: cannot remove the old trace file: {}", util::printable(p.string()), ec.message());
  }
  return std::nullopt;
}

// The summary line after the run, and a warning when nothing was written.
// The streams are counted, not decoded into events: a trace of a long run
// may hold billions.
void summarize(const std::string& dir, const std::string& prog) {
  uint64_t threads = 0, events = 0, calls = 0, stream_bytes = 0, disk = 0;
  std::set<uint32_t> pids;
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    struct stat st {};
    if (!trace_file(it->path()) || ::stat(it->path().c_str(), &st) != 0) continue;
    disk += uint64_t(st.st_blocks) * 512;
    if (it->path().extension() != ".ckt") continue;
    auto data = util::read_file(it->path().string());
    format::StreamCounts counts;
    if (!data || !format::count_trace_stream(data->bytes(), counts)) continue;
    ++threads;
    pids.insert(uint32_t(std::strtoul(it->path().filename().c_str(), nullptr, 10)));
    events += counts.events;
    calls += counts.enters;
    stream_bytes += counts.bytes - std::min<uint64_t>(counts.bytes, format::kTraceHeaderSize);
  }
  if (threads == 0) {
    std::fprintf(stderr,
                 "covkit trace record: warning: no trace was written in %s: %s ran none of its instrumented "
                 "functions, or did not load the runtime (a static or setuid program, or one that clears "
                 "LD_PRELOAD?)\n",
                 util::printable(dir).c_str(), util::printable(prog).c_str());
    return;
  }
  std::string per_call = calls ? fmt::format("{:.1f} bytes per call", double(stream_bytes) / double(calls))
                               : std::string("no calls");
  std::fprintf(stderr, "covkit trace record: %s, %s, %s events (%s calls), %s on disk, %s; trace in %s\n",
               pids.size() == 1 ? "1 process" : fmt::format("{} processes", pids.size()).c_str(),
               threads == 1 ? "1 thread" : fmt::format("{} threads", threads).c_str(),
               fmt::format("{}", events).c_str(), fmt::format("{}", calls).c_str(), human_bytes(disk).c_str(),
               per_call.c_str(), util::printable(dir).c_str());
}

}  // namespace

int run_trace_record(int argc, char** argv) {
  CLI::App app{kDescription, "covkit trace record"};
  app.formatter(std::make_shared<RecordFormatter>());
  app.footer(kFooter);
  app.get_formatter()->column_width(30);
  std::string dir = kDefaultDir, min_time;
  std::optional<uint32_t> max_depth;
  bool static_runtime = false;
  app.add_option("-o,--output", dir, "Trace directory [default: ./covkit-trace.data]")->type_name("DIR");
  app.add_option("--max-depth", max_depth,
                 "Record no calls deeper than N frames (they are still counted for exactness)")
      ->check(CLI::PositiveNumber)
      ->type_name("N");
  app.add_option("--min-time", min_time,
                 "Do not record calls shorter than T that call no recorded function; T: 500ns, 10us, 2ms, 1s or "
                 "plain nanoseconds")
      ->type_name("T");
  app.add_flag("--static", static_runtime,
               "PROG carries the runtime itself (linked with it, or fully static): do not preload "
               "libcovkit-trace.so, only set COVKIT_TRACE_*");
  // Everything from PROG on is PROG's: CLI11 stops at the first word that
  // is not one of our options (or at "--", which it keeps).
  app.prefix_command();
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);  // --help
    std::fprintf(stderr, "covkit trace record: %s (see covkit trace record --help)\n", e.what());
    return 1;
  }
  std::vector<std::string> command = app.remaining();
  if (!command.empty() && command.front() == "--") command.erase(command.begin());
  if (command.empty()) return fail("no program to run (see covkit trace record --help)");

  std::optional<uint64_t> min_time_ns;
  if (!min_time.empty()) {
    min_time_ns = trace::parse_duration_ns(min_time);
    if (!min_time_ns) return fail(fmt::format("--min-time {}: not a duration (500ns, 10us, 2ms, 1s)",
                                              util::printable(min_time)));
  }

  auto prog = trace::find_program(command[0]);
  if (!prog) {
    std::fprintf(stderr, "covkit trace record: %s: command not found\n", util::printable(command[0]).c_str());
    return 127;
  }
  trace::ProgramInfo info = trace::inspect_program(*prog);
  if (info.elf && !info.references_hooks)
    std::fprintf(stderr,
                 "covkit trace record: warning: %s has no instrumented functions (it does not reference "
                 "__cyg_profile_func_enter): build it with -finstrument-functions; only instrumented code "
                 "(such as instrumented shared libraries) will be traced\n",
                 util::printable(*prog).c_str());
  if (info.elf && !info.dynamic && !static_runtime)
    std::fprintf(stderr,
                 "covkit trace record: warning: %s is statically linked, so LD_PRELOAD cannot load the "
                 "runtime: link it with the runtime and use --static\n",
                 util::printable(*prog).c_str());
  if (info.defines_hooks && !static_runtime)
    std::fprintf(stderr,
                 "covkit trace record: warning: %s defines __cyg_profile_func_enter itself (linked with a "
                 "runtime?); its own definition wins over the preloaded one: use --static if it is covkit's\n",
                 util::printable(*prog).c_str());

  std::string runtime;
  if (!static_runtime) {
    auto found = find_runtime();
    if (!found) return fail(fmt::format("{} not found next to the covkit executable", kRuntimeName));
    runtime = *found;
    // ld.so splits LD_PRELOAD at spaces and colons.
    if (runtime.find_first_of(" :") != std::string::npos)
      return fail(fmt::format("{}: a path with a space or a colon cannot go into LD_PRELOAD",
                              util::printable(runtime)));
  }

  if (auto err = prepare_dir(dir)) return fail(*err);
  std::error_code ec;
  std::string abs_dir = fs::absolute(dir, ec).lexically_normal().string();
  if (ec) abs_dir = dir;
  while (abs_dir.size() > 1 && abs_dir.back() == '/') abs_dir.pop_back();

  // The environment: ours, with the runtime's settings replaced.
  std::vector<std::string> env;
  std::string preload = runtime;
  auto setting = [](const char* entry, const char* name) {
    size_t n = std::strlen(name);
    return std::strncmp(entry, name, n) == 0 && entry[n] == '=';
  };
  for (char** e = environ; *e; ++e) {
    if (setting(*e, "LD_PRELOAD") && !static_runtime) {
      const char* old = *e + std::strlen("LD_PRELOAD=");
      if (*old) preload += std::string(":") + old;
      continue;
    }
    if (setting(*e, "COVKIT_TRACE_DIR") || (max_depth && setting(*e, "COVKIT_TRACE_MAX_DEPTH")) ||
        (min_time_ns && setting(*e, "COVKIT_TRACE_MIN_TIME_NS")))
      continue;
    env.emplace_back(*e);
  }
  if (!static_runtime) env.push_back("LD_PRELOAD=" + preload);
  env.push_back("COVKIT_TRACE_DIR=" + abs_dir);
  if (max_depth) env.push_back(fmt::format("COVKIT_TRACE_MAX_DEPTH={}", *max_depth));
  if (min_time_ns) env.push_back(fmt::format("COVKIT_TRACE_MIN_TIME_NS={}", *min_time_ns));
  std::vector<char*> envp, args;
  for (std::string& s : env) envp.push_back(s.data());
  envp.push_back(nullptr);
  for (std::string& s : command) args.push_back(s.data());
  args.push_back(nullptr);

  // Like system(): while PROG runs, ^C and ^\ are PROG's to handle, and
  // covkit stays to write the summary. PROG gets the default dispositions.
  struct sigaction ignore {}, old_int {}, old_quit {};
  ignore.sa_handler = SIG_IGN;
  sigemptyset(&ignore.sa_mask);
  ::sigaction(SIGINT, &ignore, &old_int);
  ::sigaction(SIGQUIT, &ignore, &old_quit);
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  sigset_t defaults;
  sigemptyset(&defaults);
  sigaddset(&defaults, SIGINT);
  sigaddset(&defaults, SIGQUIT);
  posix_spawnattr_setsigdefault(&attr, &defaults);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGDEF);
  pid_t pid = -1;
  int rc = ::posix_spawn(&pid, prog->c_str(), nullptr, &attr, args.data(), envp.data());
  posix_spawnattr_destroy(&attr);
  int status = 0;
  if (rc == 0)
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
  ::sigaction(SIGINT, &old_int, nullptr);
  ::sigaction(SIGQUIT, &old_quit, nullptr);
  if (rc != 0) {
    std::fprintf(stderr, "covkit trace record: %s: cannot run: %s\n", util::printable(*prog).c_str(),
                 std::strerror(rc));
    return 127;
  }

  summarize(abs_dir, *prog);
  if (WIFSIGNALED(status)) {
    int sig = WTERMSIG(status);
    const char* name = sigabbrev_np(sig);
    std::fprintf(stderr, "covkit trace record: %s was killed by signal %d (SIG%s)%s; the trace holds what was written "
                 "until then\n",
                 util::printable(command[0]).c_str(), sig, name ? name : "?", WCOREDUMP(status) ? ", core dumped" : "");
    return 128 + sig;
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}

}  // namespace covkit::cli
