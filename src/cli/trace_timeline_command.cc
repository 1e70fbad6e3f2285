// `covkit trace timeline`: options, the timeline (src/trace/timeline_writer)
// streamed into the output file, an exit status.
#include "cli/cli11.h"
#include <fmt/format.h>

#include <cstdio>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>

#include "cli/command_line.h"
#include "cli/output_options.h"
#include "cli/trace_command.h"
#include "cli/trace_warnings.h"
#include "format/trace_reader.h"
#include "trace/duration.h"
#include "trace/module_check.h"
#include "trace/symbolizer.h"
#include "trace/timeline_writer.h"
#include "util/fast_allocator.h"
#include "util/printable.h"

namespace covkit::cli {

namespace {

namespace fs = std::filesystem;

constexpr const char* kTraceTimelineDescription =
    "Writes a trace recorded by `covkit trace record` as a timeline: Chrome\n"
    "trace-event JSON that ui.perfetto.dev and chrome://tracing open.\n"
    "\n"
    "Each thread is a track (named by its process, executable and pid, and by its\n"
    "thread name); each call is a slice nested in its caller's, with the function's\n"
    "source file and line as arguments. Times are microseconds since the trace\n"
    "began, exact to the nanosecond. Calls still running where a thread's record\n"
    "ends (a program that was killed or is still running) end there.\n"
    "\n"
    "Big traces make big files (about 150 bytes per call) that browsers open\n"
    "slowly: --min-duration leaves out short calls, --max-events keeps the\n"
    "longest calls only. The trace is read once, a block at a time; memory holds\n"
    "the calls to be written (about 40 bytes each), not the trace.\n";

constexpr const char* kTraceTimelineFooter =
    "T is a number with a unit: ns, us, ms or s (a bare number is nanoseconds).\n"
    "\n"
    "Exit status: 0 on success, 1 on any error (one line on stderr).\n"
    "\n"
    "Examples:\n"
    "  covkit trace timeline -o timeline.json            the trace in ./covkit-trace.data\n"
    "  covkit trace timeline run1/ -o run1.json --min-duration 10us\n"
    "  covkit trace timeline -o big.json --max-events 0  every call, however many\n"
    "  covkit trace timeline | jq .                      to standard output\n"
    "Then open the file at https://ui.perfetto.dev (Open trace file) or in\n"
    "chrome://tracing (Load).";

constexpr const char* kTraceTimelineDefaultDir = "covkit-trace.data";

constexpr std::string_view kTraceTimelineCommand = "covkit trace timeline";

struct TimelineCommandOptions {
  std::string dir = kTraceTimelineDefaultDir, out, min_duration;
  OptionalOutput json;  // the timeline is JSON anyway: --json only says where
  bool no_source = false;
  trace::TimelineOptions timeline;
};

int timeline(TimelineCommandOptions& o) {
  if (!o.min_duration.empty()) {
    auto t = trace::parse_duration_ns(o.min_duration);
    if (!t) return fail(kTraceTimelineCommand, "", fmt::format("--min-duration {}: not a duration (500ns, 10us, 2ms, 1s)", o.min_duration));
    o.timeline.min_duration_ns = *t;
  }
  o.timeline.source_args = !o.no_source;
  std::error_code ec;
  if (!is_stdout(o.out) && fs::is_directory(o.out, ec)) return fail(kTraceTimelineCommand, o.out, "is a directory");
  auto trace = format::read_trace_dir(o.dir);
  if (!trace) return fail(kTraceTimelineCommand, o.dir, trace.error());
  print_trace_warnings("timeline", trace->warnings);
  print_trace_warnings("timeline", trace::changed_module_warnings(*trace));

  // A file is written whole or not at all; standard output as it goes.
  auto output = TextOutput::open(kTraceTimelineCommand, o.out);
  if (!output) return 1;
  trace::Symbolizer symbols;
  trace::SymbolLookup lookup = [&](const format::TraceProcess& p, uint64_t address,
                                   uint64_t when) -> const trace::SymbolInfo& { return symbols.lookup(p, address, when); };
  trace::TimelineStats stats;
  trace::write_timeline(*trace, lookup, o.timeline, [&](std::string_view piece) { output->write(piece); }, &stats);
  print_trace_warnings("timeline", stats.warnings);
  if (stats.calls == 0)  // the output is discarded
    return fail(kTraceTimelineCommand, o.dir, "no function calls in the trace (was the program built with -finstrument-functions?)");
  if (!output->commit()) return 1;
  if (stats.over_limit > 0)
    std::fprintf(stderr,
                 "%s: %s: the %llu longest of %llu calls written (--max-events; %llu shorter calls left out)\n",
                 std::string(kTraceTimelineCommand).c_str(), is_stdout(o.out) ? "<stdout>" : util::printable(o.out).c_str(), (unsigned long long)stats.written,
                 (unsigned long long)stats.calls, (unsigned long long)stats.over_limit);
  return 0;
}

}  // namespace

int run_trace_timeline(int argc, char** argv) {
  CLI::App app{kTraceTimelineDescription, std::string(kTraceTimelineCommand)};
  app.footer(kTraceTimelineFooter);
  app.get_formatter()->column_width(30);
  TimelineCommandOptions o;
  o.timeline.max_events = 1000000;
  app.add_option("DIR", o.dir, "The trace directory [default: covkit-trace.data]");
  add_output_file_option(app, o.out, "the timeline (JSON)", "standard output");
  add_json_option(app, o.json, "the timeline (it is JSON anyway)");
  app.add_option("--min-duration", o.min_duration, "Leave out calls shorter than T [default: 0]")->type_name("T");
  app.add_option("--max-events", o.timeline.max_events,
                 "Write at most N calls, the longest; 0 for no limit [default: 1000000]")
      ->check(CLI::Validator(
          [](std::string& v) {
            bool digits = !v.empty() && v.find_first_not_of("0123456789") == std::string::npos && v.size() < 20;
            return digits ? std::string() : "'" + v + "' is not a whole number >= 0";
          },
          ""))
      ->type_name("N");
  app.add_flag("--no-source", o.no_source, "Leave out the file and line arguments of each call (smaller files)");
  app.add_option("-j,--jobs", o.timeline.threads, "Replay N thread streams at once [default: one per core]")
      ->check(whole_number_in(1, 1024))
      ->type_name("N");
  if (auto status = parse_command_line(app, argc, argv)) return *status;
  util::use_fast_allocator();  // reads much, allocates much: mimalloc
  take_back_input(o.json, o.dir);
  if (!o.json.file.empty()) {
    if (!o.out.empty() && o.out != o.json.file)
      return fail(kTraceTimelineCommand, "", "--json " + o.json.file + " and -o " + o.out + " are two places for one output");
    o.out = o.json.file;
  }
  return run_guarded(kTraceTimelineCommand, [&] { return timeline(o); });
}

}  // namespace covkit::cli
