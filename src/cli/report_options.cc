#include "cli/report_options.h"

#include "cli/cli11.h"
#include <fmt/format.h>

#include <filesystem>
#include <regex>

#include "cli/command_line.h"
#include "model/source_paths.h"

namespace covkit::cli {

namespace {

constexpr const char* kReportOptionsDescription =
    "Coverage reports for a whole build: finds the .gcno/.gcda files under the\n"
    "given build trees (default: the current directory), computes exactly what\n"
    "gcov computes, adds runs and translation units together, and writes any\n"
    "number of reports. With no output option it prints a summary table.\n"
    "Clang's source-based coverage (-fprofile-instr-generate -fcoverage-mapping)\n"
    "too: .profraw/.profdata files with the programs and libraries that wrote\n"
    "them (found under the PATHs, or named with --object), counted as llvm-cov\n"
    "counts them, no llvm-profdata step needed; GCC and clang objects of one\n"
    "project make one report.\n";

constexpr const char* kReportOptionsFooter =
    "Exclusion markers in sources (disable with --no-exclusion-markers):\n"
    "  LCOV_EXCL_LINE, LCOV_EXCL_START ... LCOV_EXCL_STOP      drop lines\n"
    "  LCOV_EXCL_BR_LINE, LCOV_EXCL_BR_START ... _BR_STOP     drop branches\n"
    "  LCOV_EXCL_EXCEPTION_BR_LINE/_START/_STOP               drop exception branches\n"
    "  GCOVR_EXCL_* and GCOV_EXCL_* are the same markers.\n"
    "\n"
    "Exit status: 0 on success; 1 on bad usage or when nothing could be read\n"
    "(no objects found, or every one damaged or unreadable: the warnings say\n"
    "which; damaged objects beside good ones are warnings, and counted, and a\n"
    ".gcda that ends early is reported as far as it goes, with a warning);\n"
    "2 when a --fail-under gate fails; 3 when an output could not be written\n"
    "(or --html names a non-empty directory that covkit did not write).\n"
    "Percentages: one decimal, rounded; 100.0% and 0.0% only when exact; '-'\n"
    "when there is nothing to cover.\n"
    "\n"
    "Examples:\n"
    "  covkit report build/                          summary table\n"
    "  covkit report --html cov/ --lcov cov.info build/\n"
    "  covkit report --cobertura cov.xml --fail-under-line 80 build/\n"
    "  covkit report --path-map /src=$PWD build/ /tmp/gcov-prefix/\n"
    "  covkit report --diff origin/main --markdown pr.md build/\n"
    "See docs/covkit-report.md for the formats and every option.";

}  // namespace

void add_report_source_options(CLI::App& app, ReportOptions& o) {
  auto* in = "Input";
  app.add_option("-r,--root", o.root, "Project root: reported paths are relative to it [default: .]")->type_name("DIR")->group(in);
  app.add_option("--source-prefix", o.source_prefix, "Remove this directory from the reported paths of sources under it (tried before --root, like gcov -s)")->type_name("DIR")->group(in);
  app.add_option("--path-map",
                 "OLD=NEW: sources recorded under OLD are found under NEW (builds moved between "
                 "machines or containers); repeatable, first match wins")
      ->type_name("OLD=NEW")
      ->allow_extra_args(false)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll)
      ->check([](const std::string& m) { return model::parse_path_map(m) ? std::string() : m + ": expected OLD=NEW"; },
              "")
      ->each([&o](const std::string& m) { o.path_maps.push_back(*model::parse_path_map(m)); })
      ->group(in);
}

void add_report_view_options(CLI::App& app, ReportOptions& o) {
  auto* out = "Output";
  add_output_file_option(app, o.output,
                         "the report; its format from the name: .info or .lcov lcov, .xml Cobertura, .json covkit "
                         "JSON, .md Markdown, .txt the table, a directory (DIR/) the HTML site")
      ->group(out);
  add_optional_output(app, "--lcov", o.lcov_out, "Write an lcov tracefile (TN/SF/FN/FNDA/BRDA/DA records)")->group(out);
  add_optional_output(app, "--cobertura,--xml", o.cobertura_out, "Write Cobertura XML (GitLab, Jenkins)")->group(out);
  add_optional_output(app, "--sonarqube", o.sonarqube_out, "Write SonarQube generic coverage XML")->group(out);
  add_optional_output(app, "--coveralls", o.coveralls_out, "Write a Coveralls API JSON file")->group(out);
  add_json_option(app, o.json_out, "covkit's coverage model (docs/report-formats.md)")->group(out);
  add_optional_output(app, "--html", o.html_out,
                      "Write a static HTML site into DIR (missing, empty, or a site covkit wrote; replaced as a "
                      "whole)",
                      "DIR")
      ->group(out);
  add_optional_output(app, "--markdown", o.markdown_out, "Write a Markdown summary (for pull requests)")->group(out);
  app.add_flag("-s,--print-summary", o.print_summary, "Print the summary table even when writing files")
      ->group(out);
  app.add_option("--test-name", o.test_name, "TN: name in the lcov tracefile")->type_name("NAME")->group(out);
  add_deprecated_letter(app, "-t", "--test-name", o.test_name);
  app.add_option("--title", o.title, "Title of the HTML report [default: covkit coverage]")->type_name("TITLE")->group(out);
  app.add_option("--coveralls-service", o.coveralls_service, "service_name in the Coveralls file [default: covkit]")->type_name("NAME")->group(out);
  app.add_flag("--show-instantiations", o.show_instantiations,
               "Show each template instantiation's count of a line (HTML, JSON); counts are "
               "always summed per line")
      ->group(out);

  auto* flt = "Filters";
  app.add_option("-f,--filter", o.filters, "Keep only sources whose path matches this regex (repeatable)")->type_name("REGEX")
      ->allow_extra_args(false)->group(flt);
  app.add_option("-e,--exclude", o.excludes, "Drop sources whose path matches this regex (repeatable)")->type_name("REGEX")->allow_extra_args(false)->group(flt);
  app.add_flag("--keep-system-headers", o.keep_system_headers,
               "Keep /usr/include and compiler headers (dropped by default)")
      ->group(flt);
  app.add_flag("--keep-cmake-probes", o.keep_cmake_probes,
               "Keep CMake's compiler-identification and try-compile sources (CMakeFiles/<version>/"
               "CompilerId*/..., dropped by default)")
      ->group(flt);
  app.add_flag_callback("--no-exclusion-markers", [&o] { o.exclusion_markers = false; },
                        "Ignore LCOV_EXCL_*/GCOVR_EXCL_* markers")
      ->group(flt);
  app.add_flag("--exclude-throw-branches", o.exclude_throw_branches,
               "Drop branches taken only when an exception is thrown")
      ->group(flt);
  app.add_flag("--exclude-unreachable-branches", o.exclude_unreachable_branches,
               "Drop branches of code reachable only through exception or noreturn paths")
      ->group(flt);
  app.add_option("--diff", o.diff_rev,
                 "Keep only lines changed since this git revision (diff coverage; needs git)")->type_name("REV")
      ->group(flt);

  auto* gate = "Gates";
  // "80%" is accepted as 80: that is how people write it (and gcovr
  // users try it).
  auto percent = [](std::string s) {
    if (!s.empty() && s.back() == '%') s.pop_back();
    return s;
  };
  app.add_option("--fail-under-line", o.fail_under_line,
                 "Exit 2 if line coverage is below N percent, or if there are no lines at all (with --diff: "
                 "changes without code pass)")
      ->type_name("N")
      ->transform(percent)
      ->check(number_in(0, 100))
      ->group(gate);
  app.add_option("--fail-under-branch", o.fail_under_branch,
                 "Exit 2 if branch coverage is below N percent (no branches at all pass)")
      ->type_name("N")
      ->transform(percent)
      ->check(number_in(0, 100))
      ->group(gate);
  app.add_option("--fail-under-function", o.fail_under_function,
                 "Exit 2 if function coverage is below N percent (no functions at all pass)")
      ->type_name("N")
      ->transform(percent)
      ->check(number_in(0, 100))
      ->group(gate);

  auto* run = "Running";
  app.add_option("-j,--jobs", o.threads, "Threads [default: all cores]")
      ->type_name("N")
      ->check(whole_number_in(1, 1024))
      ->group(run);
  app.add_option("--color", o.color, "Colour the summary: auto (on a terminal, unless NO_COLOR is set or TERM=dumb), always, never [default: auto]")->type_name("WHEN")
      ->check(CLI::IsMember({"auto", "always", "never"}))
      ->group(run);
  app.add_flag("-q,--quiet", o.quiet, "No warnings (errors are still printed)")->group(run);
}

std::optional<int> parse_report_options(int argc, char** argv, ReportOptions& o) {
  CLI::App app{kReportOptionsDescription, "covkit report"};
  app.footer(kReportOptionsFooter);
  app.get_formatter()->column_width(36);
  // Repeatable options take one value per use (`-e X build/` must leave
  // build/ as a path, as in gcovr).
  app.add_option("PATH", o.paths,
                 "Build trees, data (GCOV_PREFIX) trees, .gcda/.gcno files, clang profiles (.profraw, .profdata) "
                 "or instrumented binaries [default: .]")
      ->type_name("PATH");
  add_report_source_options(app, o);
  app.add_option("--object-directory", o.object_directories,
                 "Also look here for .gcno files (when data files live in another tree)")->type_name("DIR")
      ->allow_extra_args(false)->group("Input");
  app.add_option("--object", o.objects,
                 "A program or shared library built with -fprofile-instr-generate -fcoverage-mapping whose "
                 "profiles are given (repeatable, as llvm-cov's -object); without it the PATHs are searched")
      ->type_name("BIN")
      ->allow_extra_args(false)
      ->group("Input");
  app.add_flag("--add", o.add_data,
               "Add up the data files of one object found in several places (runs kept apart); without it "
               "the named ones are used (a .gcda, or a PATH holding no .gcno), else the one beside the .gcno, "
               "and the others are named in a warning")
      ->group("Input");
  app.add_option("-a,--add-tracefile", o.tracefiles, "Add an lcov tracefile or covkit JSON file (repeatable)")->type_name("FILE")
      ->allow_extra_args(false)->group("Input");
  add_report_view_options(app, o);
  if (auto rc = parse_command_line(app, argc, argv)) return rc;
  if (auto bad = resolve_report_outputs(o, &o.paths)) return fail("covkit report", "", *bad);
  if (o.paths.empty() && o.tracefiles.empty()) o.paths.push_back(".");
  return std::nullopt;
}

namespace {

bool names_a_directory(const std::string& path) {
  std::error_code ec;
  return !path.empty() && path != "-" && (path.back() == '/' || std::filesystem::is_directory(path, ec));
}

}  // namespace

namespace {

std::optional<std::string> resolve_destinations(ReportOptions& o, std::vector<std::string>* inputs) {
  struct Format {
    const char* option;
    OptionalOutput* given;
    std::string* dest;
  };
  const Format formats[] = {{"--lcov", &o.lcov_out, &o.lcov},           {"--cobertura", &o.cobertura_out, &o.cobertura},
                            {"--sonarqube", &o.sonarqube_out, &o.sonarqube}, {"--coveralls", &o.coveralls_out, &o.coveralls},
                            {"--json", &o.json_out, &o.json},           {"--markdown", &o.markdown_out, &o.markdown},
                            {"--html", &o.html_out, &o.html}};
  std::vector<const Format*> unnamed;
  for (const Format& f : formats) {
    if (!f.given->asked) continue;
    // A directory given to a file format is what to report (`--json
    // build/`), not where to write.
    if (f.dest != &o.html && names_a_directory(f.given->file)) {
      if (!inputs) return fmt::format("{} {}: a directory; {} writes a file", f.option, f.given->file, f.option);
      take_back_inputs(*f.given, *inputs);
    }
    if (f.given->file.empty()) unnamed.push_back(&f);
    else *f.dest = f.given->file;
  }
  if (o.output.empty()) {
    for (const Format* f : unnamed) {
      if (f->dest == &o.html) return std::string("--html needs a DIR (or -o DIR/)");
      *f->dest = "-";
    }
    return std::nullopt;
  }
  if (unnamed.size() > 1)
    return fmt::format("{} and {} would both go to -o {}: give each its own FILE", unnamed[0]->option,
                       unnamed[1]->option, o.output);
  if (unnamed.size() == 1) {
    *unnamed[0]->dest = o.output;
    return std::nullopt;
  }
  // -o alone: the format from the name.
  if (o.output == "-") {
    o.print_summary = true;  // the table, asked for
    return std::nullopt;
  }
  std::string* dest = nullptr;
  const char* option = "";
  if (names_a_directory(o.output)) {
    dest = &o.html, option = "--html";
  } else if (auto format = format_of(o.output, {{".info", "lcov"}, {".lcov", "lcov"}, {".xml", "cobertura"},
                                                 {".json", "json"}, {".md", "markdown"}, {".markdown", "markdown"},
                                                 {".txt", "table"}, {".html", "html"}, {".htm", "html"}})) {
    if (*format == "html")
      return fmt::format("-o {}: an HTML report is a directory of pages: -o DIR/ (or --html DIR)", o.output);
    for (const Format& f : formats)
      if (std::string_view(f.option).substr(2) == *format) dest = f.dest, option = f.option;
    if (*format == "cobertura") dest = &o.cobertura, option = "--cobertura";
    if (*format == "table") dest = &o.table, option = "the table";
  }
  if (!dest)
    return fmt::format("-o {}: cannot tell the format from the name (.info or .lcov, .xml, .json, .md, .txt, or "
                       "DIR/ for HTML): rename it, or add --lcov, --cobertura, --json, --markdown...",
                       o.output);
  if (!dest->empty() && *dest != o.output)
    return fmt::format("-o {} and {} {} ask for the same format twice", o.output, option, *dest);
  *dest = o.output;
  return std::nullopt;
}

}  // namespace

std::optional<std::string> resolve_report_outputs(ReportOptions& o, std::vector<std::string>* inputs) {
  if (auto bad = resolve_destinations(o, inputs)) return bad;
  for (const std::string* f : {&o.lcov, &o.cobertura, &o.sonarqube, &o.coveralls, &o.json, &o.markdown, &o.table})
    if (f != &o.table && names_a_directory(*f)) return fmt::format("{}: is a directory, not a file to write", *f);
  if (o.html == "-") return std::string("--html: a site is a directory of pages, which standard output ('-') cannot hold");
  return std::nullopt;
}

namespace {

// Which option and pattern a regex_error came from ("--exclude '*bad'"):
// with several patterns, the line must say which one is wrong.
std::string bad_pattern(const ReportOptions& o) {
  for (const auto& [option, patterns] : {std::pair{"--filter", &o.filters}, std::pair{"--exclude", &o.excludes}})
    for (const std::string& p : *patterns) {
      try {
        std::regex(p, std::regex::ECMAScript);
      } catch (const std::regex_error&) {
        return fmt::format("{} '{}'", option, p);
      }
    }
  return "--filter/--exclude";
}

}  // namespace

std::optional<model::PathFilter> make_path_filter(std::string_view command, const ReportOptions& o) {
  try {
    return model::PathFilter(o.filters, o.excludes, o.keep_system_headers, o.keep_cmake_probes);
  } catch (const std::regex_error& e) {
    fail(command, "", fmt::format("bad {} regular expression: {}", bad_pattern(o), e.what()));
    return std::nullopt;
  }
}

}  // namespace covkit::cli
