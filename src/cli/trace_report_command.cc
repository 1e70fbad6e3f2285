// `covkit trace report [DIR]`: options, the profile (src/trace/call_profile),
// its text or JSON (src/trace/profile_text, profile_json), an exit status.
#include "cli/cli11.h"
#include <fmt/format.h>

#include <cstdio>
#include <string>

#include "cli/command_line.h"
#include "cli/output_options.h"
#include "cli/trace_command.h"
#include "cli/trace_warnings.h"
#include "format/trace_reader.h"
#include "trace/call_profile.h"
#include "trace/profile_json.h"
#include "trace/profile_text.h"
#include "trace/profile_view.h"
#include "trace/module_check.h"
#include "trace/symbolizer.h"
#include "util/fast_allocator.h"

namespace covkit::cli {

namespace {

constexpr std::string_view kTraceReportCommand = "covkit trace report";

constexpr const char* kTraceReportDescription =
    "Reads a trace directory written by `covkit trace record` (also while the\n"
    "program still runs: what it has written so far) and prints, per function\n"
    "(by demangled name, added up over threads and processes): calls,\n"
    "inclusive time (with the callees; only the outermost activation of a\n"
    "recursive function counts), exclusive time (without them) and the average\n"
    "per call. Then the maximum call depth and the deepest call chain (the first\n"
    "one that reached that depth). Only instrumented functions are frames.\n"
    "\n"
    "The trace is read once, a block at a time: memory grows with the functions\n"
    "and call paths, not with the length of the trace.\n";

constexpr const char* kTraceReportFooter =
    "JSON (--json):\n"
    "  {\"functions\": [{\"name\", \"calls\", \"inclusive_ns\", \"exclusive_ns\"}...],\n"
    "   \"edges\": [{\"caller\", \"callee\", \"calls\"}...],\n"
    "   \"max_depth\": N, \"deepest_chain\": [names, outermost first]}\n"
    "  plus \"threads\" with --threads, \"tree\" with --tree, \"callers\" with --callers.\n"
    "\n"
    "Exit status: 0; 1 when DIR is not a readable trace directory or FUNC matches\n"
    "no function. Problems inside the trace (damaged or cut files) are warnings\n"
    "on stderr.\n"
    "\n"
    "Examples:\n"
    "  covkit trace report                          ./covkit-trace.data\n"
    "  covkit trace report /tmp/t --sort exclusive --limit 20\n"
    "  covkit trace report --callers parse_expr --tree\n"
    "  covkit trace report --json > profile.json";

struct TraceReportOptions {
  std::string dir = "covkit-trace.data";
  bool json = false;  // --json, or -o FILE.json
  OptionalOutput json_out;
  std::string out;  // -o
  std::string callers;
  unsigned jobs = 0;  // 0: one per core
  trace::ProfileView view;
};

int report(TraceReportOptions& o) {
  auto set = format::read_trace_dir(o.dir);
  if (!set) return fail(kTraceReportCommand, o.dir, set.error());
  print_trace_warnings("report", set->warnings);
  print_trace_warnings("report", trace::changed_module_warnings(*set));
  trace::Symbolizer symbols;
  // Call paths are shown only by --json, --tree and --callers: without
  // them a stream can be read in parallel parts.
  const bool call_paths = o.json || o.view.tree || !o.callers.empty();
  trace::CallProfile profile = trace::build_profile(*set, symbols, o.jobs, call_paths);
  print_trace_warnings("report", profile.warnings);
  if (!o.callers.empty()) {
    o.view.callers = trace::match_functions(profile, o.callers);
    if (o.view.callers.empty())
      return fail(kTraceReportCommand, "", fmt::format("--callers {}: no such function in the trace", o.callers));
  }
  std::string text = o.json ? trace::profile_json(profile, o.view) : trace::profile_text(set->dir, profile, o.view);
  return write_output_text(kTraceReportCommand, o.out, text) ? 0 : 1;
}

}  // namespace

int run_trace_report(int argc, char** argv) {
  CLI::App app{kTraceReportDescription, std::string(kTraceReportCommand)};
  app.footer(kTraceReportFooter);
  app.get_formatter()->column_width(30);
  TraceReportOptions o;
  app.add_option("DIR", o.dir, "Trace directory [default: ./covkit-trace.data]")->type_name("");
  add_output_file_option(app, o.out, "the profile (FILE.json: as JSON)", "standard output");
  add_json_option(app, o.json_out, "the profile");
  app.add_flag("--threads", o.view.threads, "Also a flat profile per thread (before the total)");
  app.add_flag("--tree", o.view.tree, "Also the call tree of each thread, merged by call path");
  app.add_option("--callers", o.callers,
                 "Also the callers and callees of FUNC (a full name, a name without its parameters, or part of one)")
      ->type_name("FUNC");
  app.add_option("--sort", o.view.sort,
                 "Order of the flat profile: calls, inclusive, exclusive or name [default: inclusive]")
      ->check(CLI::IsMember({"calls", "inclusive", "exclusive", "name"}))
      ->type_name("KEY");
  app.add_option("--limit", o.view.limit, "Show the first N functions of the flat profile (0: all) [default: 0]")
      ->type_name("N")
      ->check(number_in(0, 1e9));
  app.add_option("-j,--jobs", o.jobs, "Replay N thread streams at once, or the parts of fewer streams [default: one per core]")
      ->check(whole_number_in(1, 1024))
      ->type_name("N");
  if (auto status = parse_command_line(app, argc, argv)) return *status;
  util::use_fast_allocator();  // reads much, allocates much: mimalloc
  take_back_input(o.json_out, o.dir);
  if (o.json_out.asked && !o.json_out.file.empty()) {
    if (!o.out.empty() && o.out != o.json_out.file)
      return fail(kTraceReportCommand, "", "--json " + o.json_out.file + " and -o " + o.out + " are two places for one output");
    o.out = o.json_out.file;
  }
  o.json = o.json_out.asked || format_of(o.out, {{".json", "json"}}).has_value();
  return run_guarded(kTraceReportCommand, [&] { return report(o); });
}

}  // namespace covkit::cli
