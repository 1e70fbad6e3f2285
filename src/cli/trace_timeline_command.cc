// `covkit trace timeline`: a trace as Chrome trace-event JSON, for Perfetto
// (ui.perfetto.dev) and chrome://tracing.
#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <cstdio>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>

#include "cli/trace_command.h"
#include "cli/trace_warnings.h"
#include "format/trace_reader.h"
#include "trace/record_support.h"
#include "trace/symbolizer.h"
#include "trace/timeline_writer.h"
#include "util/file_io.h"
#include "util/printable.h"

namespace covkit::cli {

namespace {

namespace fs = std::filesystem;

constexpr const char* kDescription =
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
    "longest calls only.\n";

constexpr const char* kFooter =
    "T is a number with a unit: ns, us, ms or s (a bare number is nanoseconds).\n"
    "\n"
    "Exit status: 0 on success, 1 on any error (one line on stderr).\n"
    "\n"
    "Examples:\n"
    "  covkit trace timeline -o timeline.json            the trace in ./covkit-trace.data\n"
    "  covkit trace timeline run1/ -o run1.json --min-duration 10us\n"
    "  covkit trace timeline -o big.json --max-events 0  every call, however many\n"
    "Then open the file at https://ui.perfetto.dev (Open trace file) or in\n"
    "chrome://tracing (Load).";

constexpr const char* kDefaultDir = "covkit-trace.data";

int fail(std::string_view file, std::string_view what) {
  std::fprintf(stderr, "covkit trace timeline: %s: %s\n", util::printable(file).c_str(), std::string(what).c_str());
  return 1;
}

}  // namespace

int run_trace_timeline(int argc, char** argv) {
  CLI::App app{kDescription, "covkit trace timeline"};
  app.footer(kFooter);
  app.get_formatter()->column_width(30);
  std::string dir = kDefaultDir, out, min_duration;
  trace::TimelineOptions options;
  options.max_events = 1000000;
  bool no_source = false;
  app.add_option("dir", dir, "The trace directory [default: covkit-trace.data]")->type_name("DIR");
  app.add_option("-o,--output", out, "Where the JSON goes")->required()->type_name("FILE");
  app.add_option("--min-duration", min_duration, "Leave out calls shorter than T [default: 0]")->type_name("T");
  app.add_option("--max-events", options.max_events,
                 "Write at most N calls, the longest; 0 for no limit [default: 1000000]")
      ->check(CLI::Validator(
          [](std::string& v) {
            bool digits = !v.empty() && v.find_first_not_of("0123456789") == std::string::npos && v.size() < 20;
            return digits ? std::string() : "'" + v + "' is not a whole number >= 0";
          },
          ""))
      ->type_name("N");
  app.add_flag("--no-source", no_source, "Leave out the file and line arguments of each call (smaller files)");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);  // --help
    std::fprintf(stderr, "covkit trace timeline: %s (see covkit trace timeline --help)\n", e.what());
    return 1;
  }
  if (!min_duration.empty()) {
    auto t = trace::parse_duration_ns(min_duration);
    if (!t) {
      std::fprintf(stderr, "covkit trace timeline: --min-duration %s: not a duration (500ns, 10us, 2ms, 1s)\n",
                   util::printable(min_duration).c_str());
      return 1;
    }
    options.min_duration_ns = *t;
  }
  options.source_args = !no_source;
  std::error_code ec;
  if (fs::is_directory(out, ec)) return fail(out, "is a directory");

  std::string error;
  auto trace = format::read_trace_dir(dir, &error);
  if (!trace) return fail(dir, error);
  print_trace_warnings("timeline", trace->warnings);

  trace::Symbolizer symbols;
  trace::SymbolLookup lookup = [&](const format::TraceProcess& p, uint64_t address,
                                   uint64_t when) -> const trace::SymbolInfo& {
    return symbols.lookup(p, address, when);
  };
  trace::TimelineStats stats;
  std::string json = trace::write_timeline(*trace, lookup, options, &stats);
  if (stats.calls == 0)
    return fail(dir, "no function calls in the trace (was the program built with -finstrument-functions?)");
  if (auto w = util::write_file_atomic(out, json); !w) return fail(out, w.error().message);
  if (stats.over_limit > 0)
    std::fprintf(stderr,
                 "covkit trace timeline: %s: the %llu longest of %llu calls written (--max-events; %llu shorter "
                 "calls left out)\n",
                 util::printable(out).c_str(), (unsigned long long)stats.written,
                 (unsigned long long)stats.calls, (unsigned long long)stats.over_limit);
  return 0;
}

}  // namespace covkit::cli
