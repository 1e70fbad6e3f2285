#pragma once
// Options of `covkit report`, parsed with CLI11.
#include "cli/cli11.h"

#include <optional>
#include <string_view>
#include <string>
#include <utility>
#include <vector>

#include "cli/output_options.h"
#include "model/path_filter.h"

namespace covkit::cli {

struct ReportOptions {
  // Where the data is.
  std::vector<std::string> paths;  // build trees, data trees, or single .gcda/.gcno files
  std::vector<std::string> object_directories;
  std::string root = ".";
  std::string source_prefix;
  std::vector<std::pair<std::string, std::string>> path_maps;
  std::vector<std::string> tracefiles;  // --add-tracefile
  // clang's source-based coverage: the instrumented programs and libraries
  // (--object); when none is named, the PATHs are searched for them.
  std::vector<std::string> objects;
  bool add_data = false;  // --add: data files of one object found in several places are added up

  // What to write: where each format goes ("" not written, "-" standard
  // output), as resolve_report_outputs decides from the options below.
  std::string lcov, cobertura, sonarqube, coveralls, json, html, markdown;
  std::string table;  // the terminal table into a file (-o FILE.txt), without colour
  bool print_summary = false;  // the terminal table on stdout even when files are written
  // As given: -o FILE, and each format's optional FILE (docs/command-line.md).
  std::string output;
  OptionalOutput lcov_out, cobertura_out, sonarqube_out, coveralls_out, json_out, html_out, markdown_out;
  std::string test_name;
  std::string title = "covkit coverage";
  std::string coveralls_service = "covkit";

  // What to count.
  std::vector<std::string> filters, excludes;
  bool keep_system_headers = false;
  bool keep_cmake_probes = false;
  bool exclusion_markers = true;
  bool exclude_throw_branches = false;
  bool exclude_unreachable_branches = false;
  bool show_instantiations = false;
  std::string diff_rev;

  // Gates.
  std::optional<double> fail_under_line, fail_under_branch, fail_under_function;

  // Set by covkit sample report (no option): counts are samples that saw a
  // line, lower bounds of its runs; views that show counts say so.
  bool sampled_counts = false;

  unsigned threads = 0;  // 0: all cores
  std::string color = "auto";
  bool quiet = false;
};

// Parses argv (argv[0] is "report"). Returns an exit code when the run is
// over already (--help, a usage error), nullopt to go on.
std::optional<int> parse_report_options(int argc, char** argv, ReportOptions& out);

// The option groups, for commands that report from elsewhere (`covkit live
// report`): where sources are (--root, --source-prefix, --path-map), and
// what to write, count and gate (outputs, filters, gates, running).
void add_report_source_options(CLI::App& app, ReportOptions& o);
void add_report_view_options(CLI::App& app, ReportOptions& o);

// After parsing: where each format goes, from -o FILE (its extension) and
// the formats' optional FILEs; an optional value that names a directory is
// taken back into `inputs` (nullptr: the command has no such inputs, and
// it is an error). An error line's text, or nullopt.
std::optional<std::string> resolve_report_outputs(ReportOptions& o, std::vector<std::string>* inputs);

// --filter/--exclude compiled; a bad expression is said in one line
// ("COMMAND: bad --exclude '*x' regular expression: ...") and nullopt.
std::optional<model::PathFilter> make_path_filter(std::string_view command, const ReportOptions& o);

}  // namespace covkit::cli
