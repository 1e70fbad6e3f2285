// `covkit trace replay [DIR]`: options, the replay (src/trace/call_replay)
// streamed to stdout, an exit status.
#include "cli/cli11.h"
#include <fmt/format.h>
#include <sys/resource.h>

#include <cstdio>
#include <string>
#include <string_view>

#include "cli/command_line.h"
#include "cli/output_options.h"
#include "cli/trace_command.h"
#include "cli/trace_warnings.h"
#include "format/trace_reader.h"
#include "trace/call_replay.h"
#include "trace/duration.h"
#include "trace/module_check.h"
#include "trace/symbolizer.h"
#include "util/fast_allocator.h"

namespace covkit::cli {

namespace {

constexpr std::string_view kTraceReplayCommand = "covkit trace replay";

constexpr const char* kTraceReplayDescription =
    "Prints the calls and returns of a trace recorded by `covkit trace record`\n"
    "as indented text, the way `uftrace replay` does:\n"
    "\n"
    "  # DURATION     TID     FUNCTION\n"
    "              [  4242] | main() {\n"
    "     0.312 us [  4242] |   parse(char const*);\n"
    "              [  4242] |   rec() {\n"
    "     0.060 us [  4242] |     rec();\n"
    "     0.261 us [  4242] |   } /* rec */\n"
    "    12.824 us [  4242] | } /* main */\n"
    "\n"
    "A call that returns before any other line is shown is one line, `f();`,\n"
    "with its duration; else `f() {` and, on its return, `} /* f */` with the\n"
    "duration. All threads (and processes) are one sequence in time order, as\n"
    "in uftrace: the TID column says whose line it is, and each thread's lines\n"
    "are indented by its own depth. Calls still open where a thread's record\n"
    "ends (a killed or still running program) are closed there, marked\n"
    "`(open at the end)`; events the runtime dropped are a line\n"
    "`/* N events lost */`; the frames a forked child starts inside are marked\n"
    "`/* before fork */`.\n"
    "\n"
    "Filters act on what is shown. The trace is read once, a block at a time:\n"
    "memory grows with the threads and the call depth, not with the events.\n";

constexpr const char* kTraceReplayFooter =
    "FUNC is a full demangled name, a name without its parameter list (`parse`\n"
    "for `parse(char const*)`) or its last components (`Parser::parse`); -F and\n"
    "-N may be given several times. T is a number with a unit: ns, us, ms or s\n"
    "(a bare number is nanoseconds).\n"
    "\n"
    "Exit status: 0; 1 when DIR is not a readable trace directory, --tid names\n"
    "no thread of it, or a FUNC of -F or -N names no function of the trace\n"
    "(after the replay). Problems\n"
    "inside the trace (damaged or cut files) are warnings on stderr.\n"
    "\n"
    "Examples:\n"
    "  covkit trace replay                         ./covkit-trace.data\n"
    "  covkit trace replay /tmp/t -F parse -D 3    parse and two levels below\n"
    "  covkit trace replay -N 'std::' -t 10us      hide std:: calls and short ones\n"
    "  covkit trace replay --tid 4243 --time       one thread, with timestamps\n"
    "  covkit trace replay | less -S";

struct ReplayCommandOptions {
  std::string dir = "covkit-trace.data";
  std::string out;  // -o
  std::string time_filter;
  bool no_duration = false;
  trace::ReplayOptions replay;
};

// The replay keeps one stream open per thread: a trace of more threads than
// the descriptor limit allows would lose the rest.
void raise_descriptor_limit() {
  struct rlimit r {};
  if (getrlimit(RLIMIT_NOFILE, &r) == 0 && r.rlim_cur < r.rlim_max) {
    r.rlim_cur = r.rlim_max;
    (void)setrlimit(RLIMIT_NOFILE, &r);
  }
}

int replay(ReplayCommandOptions& o) {
  if (!o.time_filter.empty()) {
    auto t = trace::parse_duration_ns(o.time_filter);
    if (!t) return fail(kTraceReplayCommand, "", fmt::format("--time-filter {}: not a duration (500ns, 10us, 2ms, 1s)", o.time_filter));
    o.replay.min_ns = *t;
  }
  o.replay.duration = !o.no_duration;
  auto set = format::read_trace_dir(o.dir);
  if (!set) return fail(kTraceReplayCommand, o.dir, set.error());
  print_trace_warnings("replay", set->warnings);
  print_trace_warnings("replay", trace::changed_module_warnings(*set));
  raise_descriptor_limit();
  trace::Symbolizer symbols;
  trace::SymbolLookup lookup = [&](const format::TraceProcess& p, uint64_t address,
                                   uint64_t when) -> const trace::SymbolInfo& { return symbols.lookup(p, address, when); };
  trace::ReplayStats stats;
  auto output = TextOutput::open(kTraceReplayCommand, o.out);
  if (!output) return 1;
  trace::write_replay(*set, lookup, o.replay, [&](std::string_view piece) { output->write(piece); }, &stats);
  if (!output->commit()) return 1;
  print_trace_warnings("replay", stats.warnings);
  if (!o.replay.tids.empty() && stats.threads == 0)
    return fail(kTraceReplayCommand, o.dir, "--tid: no such thread in the trace");
  for (const std::string& func : stats.unmatched)
    fail(kTraceReplayCommand, "", fmt::format("{}: no such function in the trace", func));
  return stats.unmatched.empty() ? 0 : 1;
}

}  // namespace

int run_trace_replay(int argc, char** argv) {
  CLI::App app{kTraceReplayDescription, std::string(kTraceReplayCommand)};
  app.footer(kTraceReplayFooter);
  app.get_formatter()->column_width(30);
  ReplayCommandOptions o;
  app.add_option("DIR", o.dir, "Trace directory [default: ./covkit-trace.data]")->type_name("");
  add_output_file_option(app, o.out, "the replay", "standard output");
  app.add_option("--tid", o.replay.tids, "Only the threads TID (several: --tid 1,2 or --tid 1 --tid 2)")
      ->delimiter(',')
      ->type_name("TID");
  app.add_option("-F,--filter", o.replay.filters,
                 "Only FUNC and what it calls (indented from FUNC; nested matches stay inside the outermost)")
      ->type_name("FUNC");
  app.add_option("-N,--notrace", o.replay.notrace, "Hide FUNC and what it calls")->type_name("FUNC");
  app.add_option("-D,--depth", o.replay.depth, "Show N levels of calls (from the outermost -F match) [default: all]")
      ->check(whole_number_in(1, 1 << 30))
      ->type_name("N");
  app.add_option("-t,--time-filter", o.time_filter,
                 "Hide calls shorter than T (and so what they call)")
      ->type_name("T");
  app.add_flag("--no-duration", o.no_duration, "Leave out the DURATION column");
  app.add_flag("--time", o.replay.timestamp,
               "Add a TIMESTAMP column: when each line happened, CLOCK_MONOTONIC seconds (the clock of all processes)");
  if (auto status = parse_command_line(app, argc, argv)) return *status;
  util::use_fast_allocator();  // reads much, allocates much: mimalloc
  return run_guarded(kTraceReplayCommand, [&] { return replay(o); });
}

}  // namespace covkit::cli
