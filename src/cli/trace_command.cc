#include "cli/trace_command.h"

#include "cli/cli11.h"

#include <cstring>

#include "cli/command_line.h"

namespace covkit::cli {

namespace {

constexpr const char* kTraceDescription =
    "Traces every call of the functions built with -finstrument-functions or -pg and\n"
    "reports what they did: calls, inclusive and exclusive time, callers and\n"
    "callees, call trees, the deepest stack, call graphs, timelines, and the\n"
    "calls one by one (replay, dump).\n"
    "\n"
    "  gcc -finstrument-functions -g -O2 -o prog prog.c\n"
    "  covkit trace record -- ./prog args      writes ./covkit-trace.data\n"
    "  covkit trace report                     reads it\n";

constexpr const char* kTraceFooter =
    "Each subcommand has its own --help. The trace directory format is\n"
    "docs/trace-format.md; the manual is docs/covkit-trace.md.";

}  // namespace

int run_trace_command(int argc, char** argv) {
  // The subcommands parse their own options (record passes everything after
  // the program to it untouched), so they are dispatched before CLI11.
  if (argc >= 2) {
    if (std::strcmp(argv[1], "record") == 0) return run_trace_record(argc - 1, argv + 1);
    if (std::strcmp(argv[1], "report") == 0) return run_trace_report(argc - 1, argv + 1);
    if (std::strcmp(argv[1], "graph") == 0) return run_trace_graph(argc - 1, argv + 1);
    if (std::strcmp(argv[1], "timeline") == 0) return run_trace_timeline(argc - 1, argv + 1);
    if (std::strcmp(argv[1], "replay") == 0) return run_trace_replay(argc - 1, argv + 1);
    if (std::strcmp(argv[1], "dump") == 0) return run_trace_dump(argc - 1, argv + 1);
    if (std::strcmp(argv[1], "attach") == 0) return run_trace_attach(argc - 1, argv + 1);
  }
  CLI::App app{kTraceDescription, "covkit trace"};
  app.footer(kTraceFooter);
  app.require_subcommand(1);
  app.add_subcommand("record", "Run a program with the tracing runtime preloaded; write a trace directory")
      ->prefix_command();
  app.add_subcommand("report", "Flat profile, callers and callees, call tree, deepest call chain")
      ->prefix_command();
  app.add_subcommand("graph", "Call graph (DOT, SVG, PNG, callgrind)")->prefix_command();
  app.add_subcommand("timeline", "Per-thread timeline of calls")->prefix_command();
  app.add_subcommand("replay", "The calls and returns as indented text with times, as uftrace replay shows them")
      ->prefix_command();
  app.add_subcommand("dump", "Every record of the trace files as on disk (--raw), or every event decoded")
      ->prefix_command();
  app.add_subcommand("attach", "Switch the tracing of a running process (recorded with --signal) on, then off")
      ->prefix_command();
  if (auto status = refuse_missing_subcommand(app, argc, argv)) return *status;
  if (auto status = parse_command_line(app, argc, argv)) return *status;
  return 0;
}

}  // namespace covkit::cli
