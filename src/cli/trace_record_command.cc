// `covkit trace record [OPTIONS] [--] PROG [ARGS...]`: options, then the
// recording (src/trace/: directory, environment, run, summary), then PROG's
// exit status.
#include "cli/cli11.h"
#include <fmt/format.h>

#include <algorithm>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <optional>
#include <tuple>
#include <string>
#include <vector>

#include "cli/command_line.h"
#include "cli/output_options.h"
#include "cli/trace_command.h"
#include "trace/duration.h"
#include "trace/patch_sites.h"
#include "trace/program_info.h"
#include "runtime/trace/trace_contract.h"
#include "trace/program_run.h"
#include "trace/record_environment.h"
#include "trace/record_filters.h"
#include "trace/recording_dir.h"
#include "trace/recording_summary.h"
#include "util/file_io.h"
#include "util/printable.h"

namespace covkit::cli {

namespace {

constexpr std::string_view kTraceRecordCommand = "covkit trace record";

constexpr const char* kTraceRecordDescription =
    "Runs PROG with ARGS, recording every call of its functions built with\n"
    "-finstrument-functions, -pg or -pg -mfentry (GCC or Clang; -pg on x86-64),\n"
    "or with -fpatchable-function-entry=N[,M] (N - M >= 5; x86-64) and named by --patch,\n"
    "in PROG and in the libraries it loads. The tracing runtime\n"
    "(libcovkit-trace.so, found next to covkit, or installed in LIBDIR/covkit)\n"
    "is preloaded with LD_PRELOAD;\n"
    "each thread writes its own stream into the trace directory, so recording\n"
    "costs a few bytes and nanoseconds per call.\n"
    "Children that PROG forks are traced too (their own files in the same\n"
    "directory), and so are programs it executes when they are instrumented\n"
    "(each image keeps its own files, also under the same pid).\n"
    "\n"
    "The trace directory is created (an empty one is taken). One that holds an\n"
    "earlier recording is moved to DIR.old first, as perf keeps perf.data.old\n"
    "(an older DIR.old recording is removed once the new one holds a call; when\n"
    "nothing was traced, both are put back and the exit status is 1); a\n"
    "recording still running, or a directory holding files covkit trace record\n"
    "did not write, is refused.\n"
    "\n"
    "PROG's standard input, output and error are its own; covkit writes one\n"
    "summary line on stderr when PROG ends, and exits with PROG's exit status\n"
    "(128 + the signal number when a signal killed it). A full disk or file\n"
    "size limit stops the trace, never PROG: the summary counts the lost events.\n"
    "\n"
    "Calls into shared libraries (printf, strtod, __ctype_b_loc, a library of\n"
    "the program's own) are recorded too, as uftrace records them: the PLT\n"
    "slots of every instrumented module lead through the runtime (every slot\n"
    "bound at load: LD_BIND_NOW=1; libraries loaded later too), so a\n"
    "function's exclusive time leaves out the time spent in them. A call into\n"
    "an instrumented library is recorded once, by its own hooks. --no-libcall\n"
    "records instrumented functions only.\n"
    "\n"
    "-pg builds: the runtime's mcount/__fentry__ replace glibc's, and a -pg\n"
    "function's exit is seen by replacing its return address while it runs\n"
    "(see docs/covkit-trace.md, \"Hooks\"). PROG still writes gprof's gmon.out\n"
    "into its working directory, with its time histogram but without call counts\n"
    "(those are the trace's). Only calls that the compiled code makes are seen:\n"
    "inlined calls and tail-call loops are not (-finstrument-functions records\n"
    "inlined copies too).\n"
    "\n"
    "Filters (-F, -N, -T) name functions by PATTERN: a function's whole name (its\n"
    "symbol, its demangled name, or that name without parameters: ns::f), or, when\n"
    "PATTERN holds regular-expression characters, every function whose demangled\n"
    "name it matches (POSIX extended, searched: '^ns::', 'parse_.*'). They apply to\n"
    "PROG and the libraries it loads at start; a call not recorded is still\n"
    "followed, so the trace stays exactly nested. With any filter, trigger or\n"
    "--signal every call takes the runtime's slower path (about 10 ns more per\n"
    "call); calls not recorded write nothing.\n";

constexpr const char* kTraceRecordFooterEnd =
    "\n"
    "Exit status: PROG's; 128 + N when signal N killed it; 127 when PROG cannot be\n"
    "found or run, 126 when it is no program (a directory, not executable), as a\n"
    "shell says; 1 on covkit's own errors (one line on stderr), and when nothing\n"
    "was traced (PROG not instrumented, a -F pattern that named nothing that ran;\n"
    "the line says which, and an earlier trace in the directory is kept).\n"
    "\n"
    "Examples:\n"
    "  covkit trace record -- ./prog input.txt\n"
    "  gcc -pg -mfentry -O2 prog.c -o prog && covkit trace record -- ./prog\n"
    "  covkit trace record -o /tmp/t --max-depth 20 --min-time 10us -- make check\n"
    "  covkit trace record --static -- ./prog-linked-with-the-runtime\n"
    "  covkit trace record -F parse_config -N 'ns::small_.*' -- ./prog\n"
    "  gcc -fpatchable-function-entry=5 -O2 prog.c -o prog && covkit trace record --patch 'parse_.*' -- ./prog\n"
    "  covkit trace record --signal USR2 --trace-off -- ./server &\n"
    "  covkit trace attach --for 10s $!";

constexpr const char* kTraceRecordDefaultDir = "covkit-trace.data";

// CLI11 2.1 has no custom usage line; the program and its arguments are
// not CLI11 options (they are never parsed), so the line says so here.
class TraceRecordFormatter : public HelpFormatter {
 public:
  std::string make_usage(const CLI::App*, std::string) const override {
    return "Usage: covkit trace record [OPTIONS] [--] PROG [ARGS...]\n";
  }
};

struct RecordOptions {
  std::string dir = kTraceRecordDefaultDir, min_time, signal, clock;
  std::optional<uint32_t> max_depth;
  bool static_runtime = false, trace_off = false, no_libcall = false;
  std::vector<std::string> only, notrace, triggers, patch;
};

void warn_trace_record(const std::string& what) { std::fprintf(stderr, "%s: warning: %s\n", std::string(kTraceRecordCommand).c_str(), what.c_str()); }

// What PROG's symbol tables say about how it can be traced.
trace::ProgramInfo check_program(const std::string& prog, bool static_runtime, bool patching) {
  trace::ProgramInfo info = trace::inspect_program(prog);
  const std::string name = util::printable(prog);
  if (info.patchable && !patching && !info.references_hooks && !info.references_pg_hooks)
    warn_trace_record(fmt::format("{} has patchable function entries (-fpatchable-function-entry) and no other hook: without "
                     "--patch PATTERN none of them is traced",
                     name));
  else if (info.elf && !info.references_hooks && !info.references_pg_hooks && !info.patchable)
    warn_trace_record(fmt::format("{} has no instrumented functions (it references none of __cyg_profile_func_enter, mcount, "
                     "__fentry__): build it with -finstrument-functions or -pg; only instrumented code (such as "
                     "instrumented shared libraries) will be traced",
                     name));
  if (info.elf && !info.dynamic && !static_runtime)
    warn_trace_record(fmt::format("{} is statically linked, so LD_PRELOAD cannot load the runtime: link it with the runtime and "
                     "use --static",
                     name));
  if (info.dynamic && info.defines_pg_hooks && !static_runtime)
    warn_trace_record(fmt::format("{} defines mcount or __fentry__ itself (linked with a runtime?); its own definition wins "
                     "over the preloaded one: use --static if it is covkit's",
                     name));
  if (info.defines_hooks && !static_runtime)
    warn_trace_record(fmt::format("{} defines __cyg_profile_func_enter itself (linked with a runtime?); its own definition wins "
                     "over the preloaded one: use --static if it is covkit's",
                     name));
  return info;
}

std::string joined(const std::vector<std::string>& words) {
  std::string out;
  for (const std::string& w : words) out += (out.empty() ? "" : " ") + w;
  return out;
}

// -F, -N and -T as rules; an Error names the option and what is wrong.
Expected<std::vector<trace::FilterRule>> filter_rules(const RecordOptions& o) {
  std::vector<trace::FilterRule> rules;
  for (const auto& [option, patterns, action] :
       {std::tuple{"-F", &o.only, trace::FilterAction::only}, std::tuple{"-N", &o.notrace, trace::FilterAction::notrace}})
    for (const std::string& p : *patterns) {
      auto rule = trace::parse_filter_rule(action, p);
      if (!rule) return Error(fmt::format("{} {}", option, rule.error().message));
      rules.push_back(std::move(*rule));
    }
  for (const std::string& t : o.triggers) {
    auto rule = trace::parse_trigger_rule(t);
    if (!rule) return Error(fmt::format("-T {}", rule.error().message));
    rules.push_back(std::move(*rule));
  }
  return rules;
}

// " (did you mean 'fib'?)" for the i-th unmatched pattern, or "".
std::string did_you_mean(const trace::FilterPlan& plan, size_t i) {
  return i < plan.nearest.size() && !plan.nearest[i].empty()
             ? fmt::format(" (did you mean '{}'?)", util::printable(plan.nearest[i]))
             : std::string();
}

// The functions the rules name. The patterns also go to the runtime, which
// matches them in libraries loaded later (dlopen): naming nothing now is
// said, not refused.
Expected<trace::FilterPlan> name_functions(const std::vector<trace::FilterRule>& rules, const std::string& prog,
                                           const std::vector<std::string>& modules) {
  trace::FilterPlan plan = trace::plan_filters(rules, modules);
  bool any_only = false, only_matched = false;
  for (const trace::FilterRule& r : rules) {
    if (r.action != trace::FilterAction::only) continue;
    any_only = true;
    if (std::find(plan.unmatched.begin(), plan.unmatched.end(), r.pattern) == plan.unmatched.end())
      only_matched = true;
  }
  for (size_t i = 0; i < plan.unmatched.size(); ++i)
    warn_trace_record(fmt::format("'{}' names no function of {} or of the libraries it loads at start{} (libraries it "
                                  "loads later are looked at when their functions are first called)",
                                  util::printable(plan.unmatched[i]), util::printable(prog),
                                  did_you_mean(plan, i)));
  if (any_only && !only_matched)
    warn_trace_record("no function of the program matches any -F pattern: only calls in libraries it loads later can be "
         "recorded");
  return plan;
}

// The functions with patchable entries that --patch names.
Expected<trace::PatchPlan> patch_sites(const std::vector<std::string>& patterns, const std::string& prog,
                                       const std::vector<std::string>& modules) {
  std::vector<trace::FilterRule> rules;
  for (const std::string& p : patterns) {
    auto rule = trace::parse_filter_rule(trace::FilterAction::only, p);
    if (!rule) return Error(fmt::format("--patch {}", rule.error().message));
    rules.push_back(std::move(*rule));
  }
  trace::PatchPlan plan = trace::plan_patches(rules, modules);
  // Libraries PROG loads later (dlopen) may hold what the patterns name: the
  // runtime looks when they load. So a pattern naming nothing now is said,
  // not refused.
  if (plan.patchable == 0)
    warn_trace_record(fmt::format("--patch: {} and the libraries it loads at start have no patchable function entries "
                     "(build with -fpatchable-function-entry=5); only libraries it loads later can be patched",
                     util::printable(prog)));
  else
    for (const std::string& p : plan.unmatched)
      warn_trace_record(fmt::format("--patch '{}' names no function with a patchable entry in {} or the libraries it loads at "
                       "start (libraries it loads later are looked at when they load)",
                       util::printable(p), util::printable(prog)));
  return plan;
}

// A list for the runtime (filters, patchable entries) written into the
// recording's directory as `name`; its path.
Expected<std::string> write_list(const std::string& dir, const char* name, const std::string& text) {
  std::string path = dir + "/" + name;
  if (auto written = util::write_file_atomic(path, text); !written)
    return Error(fmt::format("cannot write {}: {}", util::printable(path), written.error().message));
  return path;
}

// "USR2", "SIGUSR2" or a number.
std::optional<int> signal_number(const std::string& name) {
  std::string_view n = name;
  if (n.starts_with("SIG")) n.remove_prefix(3);
  if (!n.empty() && std::all_of(n.begin(), n.end(), [](char c) { return c >= '0' && c <= '9'; })) {
    int v = n.size() > 3 ? 0 : std::stoi(std::string(n));
    return v > 0 && v < NSIG ? std::optional(v) : std::nullopt;
  }
  for (int s = 1; s < NSIG; ++s) {
    const char* abbrev = sigabbrev_np(s);
    if (abbrev && n == abbrev) return s;
  }
  return std::nullopt;
}

// Signals the processor raises for the instruction that faulted: the
// runtime's switch handler returns to that instruction, which faults again,
// so a program that crashes would switch tracing on and off forever
// instead of dying.
bool fault_signal(int sig) {
  return sig == SIGSEGV || sig == SIGBUS || sig == SIGFPE || sig == SIGILL || sig == SIGTRAP || sig == SIGSYS;
}

// Why a recording holds no call, the likeliest cause first (issue 35: the
// filter, not the build, when -F named nothing).
std::string empty_trace_cause(const RecordOptions& o, const trace::ProgramInfo& info,
                              const std::optional<trace::FilterPlan>& plan,
                              const std::optional<trace::PatchPlan>& patches, const trace::RecordingSummary& summary,
                              const std::string& prog) {
  const std::string name = util::printable(prog);
  if (summary.unwritten > 0)
    return "the trace files could not be written (no space left on the device, a quota or a file size limit?)";
  if (info.elf && !info.dynamic && !o.static_runtime)
    return fmt::format("{} is statically linked, so LD_PRELOAD cannot load the tracing runtime: link it with the "
                       "runtime and use --static",
                       name);
  const bool hooks = info.references_hooks || info.references_pg_hooks;
  if (info.elf && info.patchable && !hooks && o.patch.empty())
    return fmt::format("{} was built with -fpatchable-function-entry and nothing else, and no --patch PATTERN named "
                       "its functions: add --patch PATTERN ('.' for all)",
                       name);
  if (info.elf && !hooks && !info.patchable)
    return fmt::format("{} has no instrumented functions (it references none of __cyg_profile_func_enter, mcount, "
                       "__fentry__): build it with -finstrument-functions or -pg; or, to choose what to trace when it "
                       "runs (as uftrace --patch does), build it with -fpatchable-function-entry=5 and trace it with "
                       "--patch PATTERN",
                       name);
  if (patches && !hooks && patches->sites.empty())
    return fmt::format("no --patch pattern named a function of {} with a patchable entry", name);
  // The runtime starts at the first call it sees: no .meta means none came.
  if (summary.processes == 0)
    return fmt::format("{} ran none of its instrumented functions, or did not load the tracing runtime (a setuid "
                       "program, or one that clears LD_PRELOAD?)",
                       name);
  if (plan && !o.only.empty()) {
    bool named = false;
    for (const std::string& p : o.only)
      named |= std::find(plan->unmatched.begin(), plan->unmatched.end(), p) == plan->unmatched.end();
    if (!named) {
      std::string patterns, nearest;
      size_t n = 0;
      for (size_t i = 0; i < plan->unmatched.size(); ++i)
        if (std::find(o.only.begin(), o.only.end(), plan->unmatched[i]) != o.only.end()) {
          patterns += fmt::format("{}-F '{}'", n++ ? ", " : "", util::printable(plan->unmatched[i]));
          if (nearest.empty()) nearest = did_you_mean(*plan, i);
        }
      return fmt::format("{} {} no function that ran{}", patterns, n == 1 ? "names" : "name", nearest);
    }
    return fmt::format("no function that -F names ran ({} or a -N pattern left nothing)", name);
  }
  if (o.trace_off)
    return "tracing started switched off (--trace-off) and nothing switched it on (-T PATTERN@trace_on, --signal "
           "and covkit trace attach)";
  if (!o.triggers.empty()) return "no -T trigger switched tracing on";
  return fmt::format("{} ran none of its instrumented functions", name);
}

int record(const RecordOptions& o, std::vector<std::string> command) {
  if (!command.empty() && command.front() == "--") command.erase(command.begin());
  if (command.empty()) return fail(kTraceRecordCommand, "", "no program to run (see covkit trace record --help)");
  trace::RecordSettings settings;
  settings.max_depth = o.max_depth;
  if (!o.min_time.empty()) {
    settings.min_time_ns = trace::parse_duration_ns(o.min_time);
    if (!settings.min_time_ns)
      return fail(kTraceRecordCommand, "", fmt::format("--min-time {}: not a duration (500ns, 10us, 2ms, 1s)", o.min_time));
  }
  auto rules = filter_rules(o);
  if (!rules) return fail(kTraceRecordCommand, "", rules.error().message);
  if (!o.signal.empty()) {
    auto sig = signal_number(o.signal);
    if (!sig || *sig == SIGKILL || *sig == SIGSTOP)
      return fail(kTraceRecordCommand, "", fmt::format("--signal {}: not a signal that can be caught (USR1, USR2, ...)", o.signal));
    if (fault_signal(*sig))
      return fail(kTraceRecordCommand, "",
                  fmt::format("--signal {}: a fault signal: a program that faults would fault again forever (use USR1, "
                              "USR2, ...)",
                              o.signal));
    settings.signal = *sig;
  }
  settings.start_off = o.trace_off;
  if (o.clock != "auto") settings.clock = o.clock;
  settings.library_calls = !o.no_libcall;
  // Switched off with nothing inside the program to switch it on: the NOPs
  // stay until covkit trace attach patches them (untraced, they cost nothing).
  settings.patch_later = o.trace_off && settings.signal != 0 && o.triggers.empty();
  auto prog = trace::find_program(command[0]);
  if (!prog) return fail(kTraceRecordCommand, command[0], prog.error().message, prog.error().status);
  const trace::ProgramInfo info = check_program(*prog, o.static_runtime, !o.patch.empty());
  // PROG's modules are listed once (ld.so --list) for --patch and the filters.
  std::vector<std::string> modules;
  if (!o.patch.empty() || !rules->empty()) modules = trace::startup_modules(*prog);
  std::optional<trace::PatchPlan> patches;
  if (!o.patch.empty()) {
    auto sites = patch_sites(o.patch, *prog, modules);
    if (!sites) return fail(kTraceRecordCommand, "", sites.error().message);
    patches = std::move(*sites);
  }
  std::optional<trace::FilterPlan> plan;
  if (!rules->empty()) {
    auto named = name_functions(*rules, *prog, modules);
    if (!named) return fail(kTraceRecordCommand, "", named.error().message);
    plan = std::move(*named);
  }
  if (!o.static_runtime) {
    auto runtime = trace::find_runtime_library();
    if (!runtime) return fail(kTraceRecordCommand, "", runtime.error());
    settings.runtime = *runtime;
  }
  auto dir = trace::prepare_recording_dir(o.dir, joined(command));
  if (!dir) return fail(kTraceRecordCommand, o.dir, dir.error());
  if (!dir->moved_to().empty())
    std::fprintf(stderr, "%s: the earlier recording in %s is now %s\n", std::string(kTraceRecordCommand).c_str(),
                 util::printable(o.dir).c_str(), util::printable(dir->moved_to()).c_str());
  settings.dir = dir->path();
  if (patches) {
    auto path = write_list(dir->path(), CKT_PATCH_FILE, trace::patch_file_text(*patches));
    if (!path) return fail(kTraceRecordCommand, "", path.error().message);
    settings.patch_file = *path;
  }
  if (plan) {
    auto path = write_list(dir->path(), CKT_FILTER_FILE, trace::filter_file_text(*plan));
    if (!path) return fail(kTraceRecordCommand, "", path.error().message);
    settings.filter_file = *path;
  }

  auto end = trace::run_program(*prog, command, trace::traced_environment(trace::current_environment(), settings));
  if (!end) return fail(kTraceRecordCommand, *prog, fmt::format("cannot run: {}", end.error().describe()), 127);

  trace::RecordingSummary summary = trace::summarize_recording(dir->path());
  if (summary.unwritten > 0)
    // The runtime created the file but could not give it its first chunk:
    // the program ran untraced there (it is never stopped for its trace).
    warn_trace_record(fmt::format("{} in {} could not be written: no space left on the device, a quota or a file "
                                  "size limit (ulimit -f)?",
                                  summary.unwritten == 1 ? std::string("a trace file")
                                                         : fmt::format("{} trace files", summary.unwritten),
                                  util::printable(dir->path())));
  if (summary.calls == 0) {
    // Nothing traced: the earlier trace stays (a good trace is not replaced
    // by an empty one), and the exit status says so.
    const std::string cause = empty_trace_cause(o, info, plan, patches, summary, *prog);
    auto discarded = dir->discard();  // through the descriptors held since it was made
    std::string kept = !discarded ? fmt::format("; {}", discarded.error().message)
                       : dir->moved_to().empty()
                           ? std::string()
                           : fmt::format("; the earlier recording is back in {}", util::printable(dir->path()));
    fail(kTraceRecordCommand, "", fmt::format("nothing was traced: {}{}", cause, kept));
    if (end->signal != 0) return 128 + end->signal;
    return end->exit_status != 0 ? end->exit_status : 1;
  }
  std::fprintf(stderr, "%s: %s\n", std::string(kTraceRecordCommand).c_str(), trace::summary_line(summary, dir->path()).c_str());
  if (auto kept = dir->keep(); !kept) warn_trace_record(kept.error().message);
  if (end->signal != 0) {
    const char* name = sigabbrev_np(end->signal);
    std::fprintf(stderr, "%s: %s was killed by signal %d (SIG%s)%s; the trace holds what was written until then\n",
                 std::string(kTraceRecordCommand).c_str(), util::printable(command[0]).c_str(), end->signal, name ? name : "?",
                 end->core_dumped ? ", core dumped" : "");
    return 128 + end->signal;
  }
  return end->exit_status;
}

}  // namespace

int run_trace_record(int argc, char** argv) {
  CLI::App app{kTraceRecordDescription, std::string(kTraceRecordCommand)};
  app.formatter(std::make_shared<TraceRecordFormatter>());
  app.footer(trace::environment_help() + kTraceRecordFooterEnd);
  app.get_formatter()->column_width(30);
  RecordOptions o;
  add_output_dir_option(app, o.dir, "the trace", "./covkit-trace.data");
  app.add_option("--max-depth,-D,--depth", o.max_depth,
                 "Record no calls deeper than N frames (they are still counted for exactness); -D/--depth as in "
                 "uftrace record")
      ->check(number_in(1, 1e9))
      ->type_name("N");
  app.add_option("--min-time", o.min_time,
                 "Do not record calls shorter than T that call no recorded function; T: 500ns, 10us, 2ms, 1s or "
                 "plain nanoseconds")
      ->type_name("T");
  app.add_option("-F,--filter", o.only,
                 "Record only calls of the functions PATTERN names and what they call (repeatable); "
                 "--max-depth then counts from them")
      ->type_name("PATTERN");
  app.add_option("-N,--notrace", o.notrace,
                 "Record neither calls of the functions PATTERN names nor what they call (repeatable)")
      ->type_name("PATTERN");
  app.add_option("-T,--trigger", o.triggers,
                 "PATTERN@trace_on or PATTERN@trace_off: entering such a function switches tracing on (that call "
                 "recorded) or off (not recorded) for the whole process (repeatable)")
      ->type_name("PATTERN@ACTION");
  app.add_option("--patch", o.patch,
                 "Trace the functions PATTERN names that were built with -fpatchable-function-entry: their NOPs "
                 "become calls at load; the others keep their NOPs and cost nothing more (repeatable; '.' names all; in "
                 "libraries loaded later, matched against symbol names as they load)")
      ->type_name("PATTERN");
  app.add_option("--signal", o.signal,
                 "Signal SIG (USR1, USR2, a number) switches tracing on and off; covkit trace attach sends it")
      ->type_name("SIG");
  app.add_flag("--trace-off", o.trace_off,
               "Start with tracing switched off (switched on by -T, --signal or covkit trace attach)");
  app.add_option("--clock", o.clock,
                 "The trace's clock: tsc (the CPU's time-stamp counter, converted to CLOCK_MONOTONIC by "
                 "calibration pairs), mono (clock_gettime(CLOCK_MONOTONIC), slower on most virtual machines) or "
                 "auto: the TSC where the kernel uses it or says it is invariant and reliable, else mono "
                 "[default: auto]")
      ->check(CLI::IsMember({"auto", "tsc", "mono"}))
      ->type_name("CLOCK");
  app.add_flag("--no-libcall", o.no_libcall,
               "Do not record calls into shared libraries (printf, strtod...): they are recorded by default, "
               "through the PLT of every instrumented module, as uftrace records them, so that a function's "
               "exclusive time leaves them out");
  app.add_flag("--static", o.static_runtime,
               "PROG carries the runtime itself (linked with it, or fully static): do not preload "
               "libcovkit-trace.so, only set COVKIT_TRACE_*");
  // Everything from PROG on is PROG's: CLI11 stops at the first word that
  // is not one of our options (or at "--", which it keeps).
  app.prefix_command();
  if (auto status = parse_command_line(app, argc, argv)) return *status;
  return run_guarded(kTraceRecordCommand, [&] { return record(o, app.remaining()); });
}

}  // namespace covkit::cli
