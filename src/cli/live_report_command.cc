// `covkit live report PID [report options]`: a running process's counters,
// read in one stop (live/live_dump), straight into `covkit report`'s stages
// (report_objects) with no .gcda file on disk; --watch repeats it.
#include "cli/cli11.h"
#include <fmt/format.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "cli/command_line.h"
#include "cli/live_command.h"
#include "cli/report_command.h"
#include "cli/report_options.h"
#include "live/live_dump.h"
#include "live/proc_files.h"
#include "live/profraw_dump.h"
#include "util/fast_allocator.h"
#include "util/output_path.h"

namespace covkit::cli {

namespace {

constexpr std::string_view kLiveReportCommand = "covkit live report";

constexpr const char* kLiveReportDescription =
    "Reads the coverage counters of a running process (as `covkit live dump`\n"
    "does: every module built with --coverage, every thread stopped for the\n"
    "read) and reports on them as `covkit report` would on the .gcda files the\n"
    "program would write now: terminal summary, lcov, Cobertura, JSON, HTML...\n"
    "No file is written but the reports asked for, and the process's counters\n"
    "are left as they are. The .gcno files are found beside the .gcda paths\n"
    "the program was compiled with (the build tree must still be there).\n"
    "\n"
    "With --watch SECONDS the report is made again every SECONDS until the\n"
    "process exits or covkit is interrupted: the terminal summary is redrawn,\n"
    "the files (an HTML site included) are replaced, each all at once.\n";

constexpr const char* kLiveReportFooter =
    "Exit status: 0 when the report was written (and the gates passed); 1 on\n"
    "an error (no such process, not allowed, no coverage data, an unknown libgcov\n"
    "layout, the process exited during the read), 2 when a --fail-under gate\n"
    "failed, 3 when an output could not be written. With --watch: that of the\n"
    "last report; 0 when the process exited after at least one.\n"
    "\n"
    "Examples:\n"
    "  covkit live report 1234                      the terminal summary\n"
    "  covkit live report 1234 --html cov/ --lcov cov.info\n"
    "  covkit live report 1234 --watch 5            a summary redrawn every 5 s\n"
    "  covkit live report --children 1234           a pre-fork server, added up\n"
    "\n"
    "Every output, filter and gate option is that of `covkit report` (see its\n"
    "--help and docs/covkit-report.md); the manual is docs/covkit-live.md.";

struct LiveReportOptions {
  pid_t pid = 0;
  bool no_stop = false;
  bool children = false;
  bool skip_unstoppable = false;
  bool gentle = false;
  double watch = 0;  // seconds; 0: once
  ReportOptions report;
};

// The .gcno that goes with a .gcda path the program was compiled with.
std::string notes_beside(const std::string& data) {
  std::string notes = data;
  if (notes.ends_with(".gcda")) notes.replace(notes.size() - 5, 5, ".gcno");
  return notes;
}

// One snapshot of the process (and, with --children, of its descendants,
// added together as runs are, all stopped at once) as report objects whose
// counts are in memory.
Expected<std::vector<format::ObjectFiles>, live::SnapshotError> snapshot_objects(const LiveReportOptions& o) {
  live::SnapshotRequest request;
  request.pid = o.pid;
  request.stop = !o.no_stop;
  request.children = o.children;
  request.skip_unstoppable = o.skip_unstoppable;
  request.gentle = o.gentle;
  auto snap = live::snapshot_tree(request);
  if (!snap) return snap.error();
  for (const std::string& w : snap->warnings)
    std::fprintf(stderr, "%s: warning: %s\n", std::string(kLiveReportCommand).c_str(), w.c_str());
  std::vector<format::ObjectFiles> objects;
  for (auto& [data, counts] : snap->files)
    objects.push_back({notes_beside(data), data, std::make_shared<const format::DataFile>(std::move(counts))});
  return objects;
}

// A process built with clang's source-based coverage: its profiles, read
// as `live dump` reads them, into a private directory for the report.
int report_clang_once(const LiveReportOptions& o) {
  if (o.children) return fail(kLiveReportCommand, "", fmt::format("process {} was built with clang's "
                                                                  "-fprofile-instr-generate: --children reads "
                                                                  "libgcov's processes only", o.pid));
  std::string dir = (std::getenv("TMPDIR") && *std::getenv("TMPDIR") ? std::string(std::getenv("TMPDIR")) : "/tmp") +
                    "/covkit-live-report-XXXXXX";
  if (!::mkdtemp(dir.data())) return fail(kLiveReportCommand, dir, "cannot create a private directory");
  auto in = live::clang_report_inputs(o.pid, !o.no_stop, dir);
  if (in)
    for (const std::string& w : in->warnings)
      std::fprintf(stderr, "%s: warning: %s\n", std::string(kLiveReportCommand).c_str(), w.c_str());
  // The binaries are links to covkit's own descriptors of the files the
  // process maps (never their paths, which the process's owner controls).
  util::test_stop_point("live-report");
  int status = in ? report_objects(o.report, {}, clang::ClangInputs{in->profiles, in->binaries}, kLiveReportCommand)
                  : fail(kLiveReportCommand, "", in.error());
  if (in) live::remove_report_inputs(*in);
  ::rmdir(dir.c_str());
  return status;
}

int report_once(const LiveReportOptions& o) {
  if (live::clang_process(o.pid)) return report_clang_once(o);
  auto objects = snapshot_objects(o);
  if (!objects) return fail(kLiveReportCommand, "", objects.error());
  return report_objects(o.report, *objects, kLiveReportCommand);
}

// Ctrl-C (or a TERM) during --watch ends the watch, not covkit: the exit
// status is then the last report's (a failed gate stays failed). A second
// one kills as usual (SA_RESETHAND), should a report hang.
volatile sig_atomic_t watch_interrupted = 0;

extern "C" void stop_watching(int) { watch_interrupted = 1; }

class WatchInterrupts {
 public:
  WatchInterrupts() {
    struct sigaction sa {};
    sa.sa_handler = stop_watching;
    sa.sa_flags = SA_RESETHAND;
    sigemptyset(&sa.sa_mask);
    ::sigaction(SIGINT, &sa, &old_int_);
    ::sigaction(SIGTERM, &sa, &old_term_);
  }
  ~WatchInterrupts() {
    ::sigaction(SIGINT, &old_int_, nullptr);
    ::sigaction(SIGTERM, &old_term_, nullptr);
  }
  bool interrupted() const { return watch_interrupted != 0; }
  // Sleeps until `when`, or less when interrupted (the signal may reach
  // any thread, so the flag is looked at every 50 ms).
  void sleep_until(std::chrono::steady_clock::time_point when) const {
    while (!interrupted() && std::chrono::steady_clock::now() < when)
      std::this_thread::sleep_for(std::min<std::chrono::steady_clock::duration>(
          std::chrono::milliseconds(50), when - std::chrono::steady_clock::now()));
  }

 private:
  struct sigaction old_int_ {}, old_term_ {};
};

int watch(const LiveReportOptions& o) {
  WatchInterrupts interrupts;
  const bool tty = isatty(STDOUT_FILENO);
  const auto period = std::chrono::duration_cast<std::chrono::steady_clock::duration>(
      std::chrono::duration<double>(o.watch));
  int status = 0;
  bool reported = false;
  for (auto next = std::chrono::steady_clock::now();; next += period) {
    if (interrupts.interrupted()) return reported ? status : 128 + SIGINT;
    if (!live::process_running(o.pid)) break;
    auto objects = snapshot_objects(o);
    if (!objects) {
      // The process ending between two reports is how a watch normally ends.
      const bool exited = objects.error().why == live::SnapshotFailure::kExited;
      if (reported && (exited || !live::process_running(o.pid))) break;
      return fail(kLiveReportCommand, "", objects.error());
    }
    if (tty) std::fputs("\033[H\033[2J", stdout);  // redraw in place
    const std::time_t now = std::time(nullptr);
    char stamp[32];
    std::strftime(stamp, sizeof stamp, "%H:%M:%S", std::localtime(&now));
    std::printf("pid %d at %s (every %gs; Ctrl-C stops)\n", o.pid, stamp, o.watch);
    std::fflush(stdout);
    status = report_objects(o.report, *objects, kLiveReportCommand);
    std::fflush(stdout);
    reported = true;
    if (status == 1 || status == 3) return status;  // an error that repeating will not mend
    interrupts.sleep_until(next + period);
    if (interrupts.interrupted()) return status;  // the last report's status
    if (std::chrono::steady_clock::now() > next + 2 * period) next = std::chrono::steady_clock::now() - period;
  }
  std::printf("pid %d has exited\n", o.pid);
  return 0;
}

int run(const LiveReportOptions& o) {
  if (o.watch > 0 && live::clang_process(o.pid))
    return fail(kLiveReportCommand, "", fmt::format("process {} was built with clang's -fprofile-instr-generate: "
                                                    "--watch reads libgcov's processes only", o.pid));
  return o.watch > 0 ? watch(o) : report_once(o);
}

}  // namespace

int run_live_report(int argc, char** argv) {
  CLI::App app{kLiveReportDescription, std::string(kLiveReportCommand)};
  app.footer(kLiveReportFooter);
  app.get_formatter()->column_width(34);
  LiveReportOptions o;
  app.add_option("PID", o.pid, "The process to report on")->required()->check(number_in(1, 2147483647));
  app.add_flag("--no-stop", o.no_stop,
               "Read without stopping the process: no pause, but the counters move while they are read, so "
               "the snapshot is not one instant")
      ->group("Process");
  app.add_flag("--children", o.children,
               "Add every descendant process's counters (pre-fork servers), as libgcov adds runs")
      ->group("Process");
  app.add_flag("--gentle", o.gentle,
               "Leave running the threads asleep in a call that a stop would make fail with EINTR (see the manual)")
      ->group("Process");
  app.add_flag("--skip-unstoppable", o.skip_unstoppable,
               "With --children: leave out, with a warning, a process covkit may not stop")
      ->group("Process");
  app.add_option("--watch", o.watch, "Report again every SECONDS until the process exits (or Ctrl-C)")
      ->type_name("SECONDS")
      ->check(number_in(0, 1e9, true))
      ->group("Process");
  add_report_source_options(app, o.report);
  add_report_view_options(app, o.report);
  if (auto status = parse_command_line(app, argc, argv)) return *status;
  util::use_fast_allocator();  // reads much, allocates much: mimalloc
  if (auto bad = resolve_report_outputs(o.report, nullptr)) return fail(kLiveReportCommand, "", *bad);
  return run_guarded(kLiveReportCommand, [&] { return run(o); });
}

}  // namespace covkit::cli
