// `covkit trace graph`: options, the profile, the call graph drawn as DOT,
// SVG or PNG (rendered in-process by Graphviz) or written as a Callgrind
// profile (src/trace/), an exit status.
#include "cli/cli11.h"
#include <fmt/format.h>

#include <cctype>
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
#include "trace/call_profile.h"
#include "trace/graph_output.h"
#include "trace/graph_title.h"
#include "trace/module_check.h"
#include "trace/symbolizer.h"
#include "util/fast_allocator.h"
#include "util/file_io.h"
#include "util/printable.h"

namespace covkit::cli {

namespace {

namespace fs = std::filesystem;

constexpr const char* kTraceGraphDescription =
    "Draws the call graph of a trace recorded by `covkit trace record`.\n"
    "\n"
    "One box per function: its name, its inclusive time (with its callees) and,\n"
    "in parentheses, its exclusive time (its own code), both as percentages of\n"
    "the total time of all threads, and how often it was called. One arrow per\n"
    "caller->callee pair, labelled with the number of calls. Colours go from\n"
    "dark blue (little time) to red (all of it), as in gprof2dot; arrows thicken\n"
    "with their share.\n"
    "\n"
    "SVG and PNG are rendered in-process by Graphviz (no `dot` program needed).\n"
    "A Callgrind file holds every function, unpruned, for KCachegrind,\n"
    "QCachegrind, callgrind_annotate or gprof2dot.\n";

constexpr const char* kTraceGraphFooter =
    "The format comes from the name of FILE: .dot or .gv, .svg, .png, .json,\n"
    "and .callgrind or a name starting with callgrind.out; --format or --json\n"
    "overrides it. Without -o (or with -o -) DOT goes to standard output.\n"
    "--threshold, --focus and --depth shape the drawn graph, not Callgrind output.\n"
    "\n"
    "Exit status: 0 on success, 1 on any error (one line on stderr).\n"
    "\n"
    "Examples:\n"
    "  covkit trace graph -o calls.svg                     the trace in ./covkit-trace.data\n"
    "  covkit trace graph | dot -Tpdf > calls.pdf          DOT on standard output\n"
    "  covkit trace graph run1/ -o calls.png --threshold 2\n"
    "  covkit trace graph -o parse.svg --focus parse_file --depth 2\n"
    "  covkit trace graph -o callgrind.out.prog && kcachegrind callgrind.out.prog\n"
    "  covkit trace graph -o calls.dot && dot -Tpdf calls.dot -o calls.pdf";

constexpr const char* kTraceGraphDefaultDir = "covkit-trace.data";

constexpr std::string_view kTraceGraphCommand = "covkit trace graph";

struct GraphCommandOptions {
  std::string dir = kTraceGraphDefaultDir, out, format;
  OptionalOutput json;
  unsigned jobs = 0;  // 0: one per core
  trace::GraphOptions graph;
};

std::string lower(std::string s) {
  for (char& c : s) c = char(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

std::optional<std::string> format_from_name(const std::string& out) {
  fs::path p(out);
  std::string ext = lower(p.extension().string());
  std::string name = p.filename().string();
  if (ext == ".dot" || ext == ".gv") return "dot";
  if (ext == ".svg") return "svg";
  if (ext == ".png") return "png";
  if (ext == ".callgrind" || name.starts_with("callgrind.out")) return "callgrind";
  if (ext == ".json") return "json";
  return std::nullopt;
}

int graph(GraphCommandOptions& o) {
  if (o.format.empty() && is_stdout(o.out)) o.format = "dot";  // text on standard output
  if (o.format.empty()) {
    auto guessed = format_from_name(o.out);
    if (!guessed)
      return fail(kTraceGraphCommand, o.out,
                  "cannot tell the format from the name; use .dot (.gv), .svg, .png, .callgrind (or callgrind.out.*), "
                  ".json or --format");
    o.format = *guessed;
  }
  std::error_code ec;
  if (!is_stdout(o.out) && fs::is_directory(o.out, ec)) return fail(kTraceGraphCommand, o.out, "is a directory");
  auto trace = format::read_trace_dir(o.dir);
  if (!trace) return fail(kTraceGraphCommand, o.dir, trace.error());
  print_trace_warnings("graph", trace->warnings);
  print_trace_warnings("graph", trace::changed_module_warnings(*trace));
  trace::Symbolizer symbols;
  trace::CallProfile profile = trace::build_profile(*trace, symbols, o.jobs);
  print_trace_warnings("graph", profile.warnings);
  if (profile.functions.empty())
    return fail(kTraceGraphCommand, o.dir, "no function calls in the trace (was the program built with -finstrument-functions?)");
  trace::GraphOutputOptions draw;
  draw.format = o.format;
  draw.graph = o.graph;
  if (trace->processes.size() == 1) draw.callgrind.command = trace->processes.front().exe;
  draw.title = [&](const trace::CallGraph& graph) { return trace::graph_title(*trace, profile, graph, o.graph); };
  auto content = trace::draw_call_profile(profile, draw);
  if (!content) return fail(kTraceGraphCommand, content.error().rendering ? o.out : o.dir, content.error());
  return write_output_text(kTraceGraphCommand, o.out, *content) ? 0 : 1;
}

}  // namespace

int run_trace_graph(int argc, char** argv) {
  CLI::App app{kTraceGraphDescription, std::string(kTraceGraphCommand)};
  app.footer(kTraceGraphFooter);
  app.get_formatter()->column_width(30);
  GraphCommandOptions o;
  app.add_option("DIR", o.dir, "The trace directory [default: covkit-trace.data]");
  add_output_file_option(app, o.out,
                         "the graph; its format from the name: FILE.dot (.gv), FILE.svg, FILE.png, a Callgrind file "
                         "(.callgrind, callgrind.out.*) or FILE.json",
                         "DOT on standard output");
  app.add_option("--format", o.format, "dot, svg, png, callgrind or json [default: from the name of FILE]")
      ->check(CLI::IsMember({"dot", "svg", "png", "callgrind", "json"}).description(""))
      ->type_name("FORMAT");
  add_json_option(app, o.json, "the nodes and edges (as --format json)");
  app.add_option("--threshold", o.graph.threshold_percent,
                 "Hide functions and calls with less than P percent of the total time [default: 0.5]; a shown "
                 "function keeps an arrow from its heaviest caller")
      ->check(number_in(0, 100))
      ->type_name("P");
  app.add_option("--focus", o.graph.focus,
                 "Show only FUNC, the functions that lead to it and what it calls (a full demangled name, else "
                 "one without its parameters or namespaces, else any part of a name; every match counts)")
      ->type_name("FUNC");
  app.add_option("--depth", o.graph.depth,
                 "Levels of callees shown below FUNC, or, without --focus, below the functions threads start in "
                 "[default: all]")
      ->check(whole_number_in(0, 1000000))
      ->type_name("N");
  app.add_option("-j,--jobs", o.jobs, "Replay N thread streams at once [default: one per core]")
      ->check(whole_number_in(1, 1024))
      ->type_name("N");
  if (auto status = parse_command_line(app, argc, argv)) return *status;
  util::use_fast_allocator();  // reads much, allocates much: mimalloc
  if (o.json.asked) {
    take_back_input(o.json, o.dir);
    if (!o.format.empty() && o.format != "json")
      return fail(kTraceGraphCommand, "", "--json and --format " + o.format + " disagree");
    o.format = "json";
    if (!o.json.file.empty()) {
      if (!o.out.empty() && o.out != o.json.file)
        return fail(kTraceGraphCommand, "", "--json " + o.json.file + " and -o " + o.out + " are two places for one output");
      o.out = o.json.file;
    }
  }
  return run_guarded(kTraceGraphCommand, [&] { return graph(o); });
}

}  // namespace covkit::cli
