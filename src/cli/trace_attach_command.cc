// `covkit trace attach [OPTIONS] PID`: switches the tracing of a process
// recorded with --signal on, waits, and switches it off (src/trace/
// tracing_switch).
#include "cli/cli11.h"
#include <fmt/format.h>

#include <cstdio>
#include <string>

#include "cli/command_line.h"
#include "cli/trace_command.h"
#include "trace/duration.h"
#include "trace/patch_switch.h"
#include "trace/tracing_switch.h"
#include "util/plural.h"
#include "util/printable.h"

namespace covkit::cli {

namespace {

constexpr std::string_view kTraceAttachCommand = "covkit trace attach";

constexpr const char* kTraceAttachDescription =
    "Switches on the tracing of PID, a process that covkit trace record started\n"
    "with --signal SIG (and usually --trace-off), waits, then switches it off:\n"
    "calls are recorded only while attached, into the process's own trace\n"
    "directory, without restarting it. The wait ends after --for, when PID ends,\n"
    "or at Ctrl-C. --on and --off only send the switch and return.\n"
    "\n"
    "PID may be covkit trace record's own (`$!` after `covkit trace record ... &`):\n"
    "then the program it runs is switched. SIG is sent only once the process\n"
    "catches it (its runtime loaded; SIG would kill it before): attach waits up\n"
    "to 5 s for that, and refuses otherwise.\n"
    "\n"
    "The switch is SIG sent with sigqueue() and a value (on or off); a plain\n"
    "`kill -SIG PID` toggles. Threads see it at their next call. Calls already\n"
    "open when tracing starts are not recorded (their returns are not either),\n"
    "so the trace stays nested. While off, -pg and -pg -mfentry functions cost\n"
    "a few ns per call (they are not followed).\n"
    "\n"
    "A process recorded with --patch also has its entries patched when tracing\n"
    "is switched on and the NOPs written back when it is switched off, so\n"
    "while off its functions cost their NOPs alone. covkit stops every thread\n"
    "for that (ptrace, like a debugger: the same user or root) and moves one\n"
    "caught inside an entry's NOPs past them; the pause is printed.\n";

constexpr const char* kTraceAttachFooter =
    "Exit status: 0 when the switch was sent (and, waiting, PID did not end\n"
    "before it could be switched off); 1 otherwise (one line on stderr).\n"
    "\n"
    "Examples:\n"
    "  covkit trace record -o srv.trace --signal USR2 --trace-off -- ./server &\n"
    "  covkit trace attach --for 30s $!\n"
    "  covkit trace report srv.trace\n"
    "  covkit trace attach --on 4242; sleep 5; covkit trace attach --off 4242";

struct AttachOptions {
  pid_t pid = 0;
  std::string duration;
  bool on = false, off = false;
};

// Patches (on) or unpatches the entries of a process recorded with --patch;
// false (after one line on stderr) when that failed.
bool switch_entries(const trace::TracedProcess& process, bool on) {
  if (!process.patch) return true;
  auto done = trace::switch_patched_entries(process.pid, on);
  if (!done) {
    fail(kTraceAttachCommand, "", fmt::format("process {}: cannot {} its entries: {}", process.pid, on ? "patch" : "unpatch",
                                   done.error().message));
    return false;
  }
  if (!*done) return true;  // no table: a runtime without --patch support, nothing to do
  const trace::PatchSwitchResult& r = **done;
  std::string extra;
  if (r.foreign) extra += fmt::format(", {} left alone (neither NOPs nor covkit's call)", r.foreign);
  if (r.moved) extra += fmt::format(", {} moved past NOPs", util::count_of(r.moved, "thread"));
  std::fprintf(stderr, "%s: %zu of %zu patchable entries %s (%s stopped for %.3f ms%s)\n",
               std::string(kTraceAttachCommand).c_str(), r.changed, r.entries, on ? "patched" : "unpatched",
               util::count_of(r.threads, "thread").c_str(), double(r.pause.count()) / 1e6, extra.c_str());
  return true;
}

// Switch on: entries first, then the signal (a patched entry returns at
// once while tracing is off). Switch off: the other way round.
int switch_on(const trace::TracedProcess& process) {
  if (!switch_entries(process, true)) return 1;
  if (auto sent = trace::switch_tracing(process, true); !sent) return fail(kTraceAttachCommand, "", sent.error().message);
  return 0;
}
int switch_off(const trace::TracedProcess& process) {
  if (auto sent = trace::switch_tracing(process, false); !sent) return fail(kTraceAttachCommand, "", sent.error().message);
  return switch_entries(process, false) ? 0 : 1;
}

int attach(const AttachOptions& o) {
  auto process = trace::find_traced_process(o.pid);
  if (!process) return fail(kTraceAttachCommand, "", process.error().message);
  const pid_t pid = process->pid;
  if (process->recorder)
    std::fprintf(stderr, "%s: process %d is covkit trace record; switching the program it traces, process %d\n",
                 std::string(kTraceAttachCommand).c_str(), int(process->recorder), int(pid));
  if (o.on || o.off) {
    if (int status = o.on ? switch_on(*process) : switch_off(*process)) return status;
    std::fprintf(stderr, "%s: tracing of process %d switched %s (trace directory %s)\n",
                 std::string(kTraceAttachCommand).c_str(), int(pid), o.on ? "on" : "off",
                 util::printable(process->dir).c_str());
    return 0;
  }
  double seconds = -1;
  if (!o.duration.empty()) {
    auto ns = trace::parse_duration_ns(o.duration);
    if (!ns) return fail(kTraceAttachCommand, "", fmt::format("--for {}: not a duration (500ms, 10s, 1.5s)", o.duration));
    seconds = double(*ns) / 1e9;
  }
  if (int status = switch_on(*process)) return status;
  std::fprintf(stderr, "%s: tracing process %d into %s%s\n", std::string(kTraceAttachCommand).c_str(), int(pid),
               util::printable(process->dir).c_str(), seconds < 0 ? "; Ctrl-C to stop" : "");
  if (trace::wait_for_process(pid, seconds)) {
    std::fprintf(stderr, "%s: process %d ended while traced\n", std::string(kTraceAttachCommand).c_str(), int(pid));
    return 0;
  }
  if (int status = switch_off(*process)) return status;
  std::fprintf(stderr, "%s: tracing of process %d switched off\n", std::string(kTraceAttachCommand).c_str(), int(pid));
  return 0;
}

}  // namespace

int run_trace_attach(int argc, char** argv) {
  CLI::App app{kTraceAttachDescription, std::string(kTraceAttachCommand)};
  app.footer(kTraceAttachFooter);
  app.get_formatter()->column_width(30);
  AttachOptions o;
  app.add_option("PID", o.pid, "The process (started by covkit trace record --signal SIG)")->required()->type_name("");
  app.add_option("--for", o.duration, "Switch off after T (500ms, 10s; plain nanoseconds) [default: at Ctrl-C or PID's end]")
      ->type_name("T");
  auto* on = app.add_flag("--on", o.on, "Only switch tracing on");
  auto* off = app.add_flag("--off", o.off, "Only switch tracing off");
  on->excludes(off);
  app.get_option("--for")->excludes(on)->excludes(off);
  if (auto status = parse_command_line(app, argc, argv)) return *status;
  return run_guarded(kTraceAttachCommand, [&] { return attach(o); });
}

}  // namespace covkit::cli
