// `covkit sample compare DIR... --against BUILD`: sampled coverage against
// instrumented coverage of the same program and workload (the truth):
// recall, precision and frequency divergence (sample/coverage_compare).
#include "cli/cli11.h"
#include <fmt/format.h>

#include <cstdio>
#include <optional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "cli/command_line.h"
#include "cli/output_options.h"
#include "cli/report_options.h"
#include "cli/sample_command.h"
#include "cli/sample_options.h"
#include "format/object_files.h"
#include "model/load_coverage_file.h"
#include "model/project_builder.h"
#include "report/object_warnings.h"
#include "sample/coverage_compare.h"
#include "sample/sampled_coverage.h"
#include "util/fast_allocator.h"
#include "util/file_io.h"
#include "util/printable.h"
#include "util/thread_pool.h"

namespace covkit::cli {

namespace {

constexpr std::string_view kSampleCompareCommand = "covkit sample compare";

constexpr const char* kSampleCompareDescription =
    "Measures how close sampled coverage comes to the truth: the same program\n"
    "built with --coverage (and the same optimization), run on the same\n"
    "workload, its .gcda files under BUILD. Lines count where both sides call\n"
    "them executable; a line both cover is a hit, one only the sample covers a\n"
    "false positive, one only the truth covers a miss.\n"
    "\n"
    "  recall     = hits / (hits + misses)           how much of the truth the sample found\n"
    "  precision  = hits / (hits + false positives)  how much of the sample is true\n"
    "  divergence = Jensen-Shannon divergence (base 2) of the two line-count\n"
    "               distributions: 0 the same shape, 1 nothing in common\n"
    "\n"
    "Per file by default; --functions adds a row per function (the truth's\n"
    "line ranges). The recordings are added together first, as in\n"
    "`covkit sample report`.\n";

constexpr const char* kSampleCompareFooter =
    "Exit status: 0 when the comparison was printed; 1 on an error (a recording\n"
    "or the truth cannot be read, nothing in common); 3 when an output file\n"
    "could not be written.\n"
    "\n"
    "Examples:\n"
    "  covkit sample compare rec1 rec2 rec3 --against build-cov/\n"
    "  covkit sample compare rec --against build-cov/ --functions --json cmp.json\n"
    "  covkit sample compare rec --against build-cov/ --csv-summary   recall,precision,divergence,...";

struct SampleCompareOptions {
  std::vector<std::string> dirs;
  std::string against;
  SampleAnalysisFlags analysis;
  bool functions = false, csv_summary = false;
  OptionalOutput json;  // --json [FILE]
  std::string out;      // -o
  ReportOptions report;  // --root, --path-map, --filter, --exclude
};

// Recall and precision exist only where their denominators are not zero: a
// truth that covers nothing has no recall (not 100%), a sample that covers
// nothing (an empty recording) no precision (not 100%).
std::optional<double> recall_of(const sample::Agreement& a) {
  if (a.true_positive + a.false_negative == 0) return std::nullopt;
  return a.recall();
}
std::optional<double> precision_of(const sample::Agreement& a) {
  if (a.true_positive + a.false_positive == 0) return std::nullopt;
  return a.precision();
}

std::string percent(std::optional<double> x) { return x ? fmt::format("{:.1f}%", 100 * *x) : "no data"; }

std::string table_row(const std::string& name, const sample::Agreement& a) {
  const int64_t common = a.true_positive + a.false_positive + a.false_negative + a.true_negative;
  return fmt::format("{:<50} {:>7} {:>7} {:>7} {:>7} {:>8} {:>9}\n", util::printable(name), common,
                     a.true_positive + a.false_negative, a.true_positive + a.false_positive, a.true_positive,
                     percent(recall_of(a)), percent(precision_of(a)));
}

std::string comparison_table(const sample::Comparison& c, bool functions) {
  std::string out = fmt::format("{:<50} {:>7} {:>7} {:>7} {:>7} {:>8} {:>9}\n", "File", "Lines", "Truth", "Sampled",
                                "Both", "Recall", "Precision");
  for (const sample::FileAgreement& f : c.files) {
    out += table_row(f.path, f.lines);
    if (functions)
      for (const sample::FunctionAgreement& fn : f.functions) out += table_row("  " + fn.name, fn.lines);
  }
  out += table_row("TOTAL", c.lines);
  out += fmt::format("lines executable on one side only: {} in the truth, {} in the sample\n", c.only_truth,
                     c.only_sampled);
  if (!c.files_only_truth.empty() || !c.files_only_sampled.empty())
    out += fmt::format("files on one side only: {} in the truth, {} in the sample\n", c.files_only_truth.size(),
                       c.files_only_sampled.size());
  out += fmt::format("frequency divergence (Jensen-Shannon): {:.4f}\n", c.divergence);
  return out;
}

// null where there is no data to make a ratio of.
nlohmann::ordered_json json_ratio(std::optional<double> x) { return x ? nlohmann::ordered_json(*x) : nullptr; }

nlohmann::ordered_json agreement_json(const sample::Agreement& a) {
  return {{"true_positive", a.true_positive}, {"false_positive", a.false_positive},
          {"false_negative", a.false_negative}, {"true_negative", a.true_negative},
          {"recall", json_ratio(recall_of(a))}, {"precision", json_ratio(precision_of(a))}};
}

std::string comparison_json(const sample::Comparison& c) {
  nlohmann::ordered_json files = nlohmann::ordered_json::array();
  for (const sample::FileAgreement& f : c.files) {
    nlohmann::ordered_json fns = nlohmann::ordered_json::array();
    for (const sample::FunctionAgreement& fn : f.functions)
      fns.push_back({{"name", fn.name}, {"start_line", fn.start_line}, {"end_line", fn.end_line},
                     {"lines", agreement_json(fn.lines)}});
    files.push_back({{"path", f.path}, {"lines", agreement_json(f.lines)}, {"only_truth", f.only_truth},
                     {"only_sampled", f.only_sampled}, {"functions", std::move(fns)}});
  }
  nlohmann::ordered_json j = {{"format", "covkit-sample-compare"}, {"format_version", 1},
                              {"lines", agreement_json(c.lines)}, {"only_truth", c.only_truth},
                              {"only_sampled", c.only_sampled}, {"divergence", c.divergence},
                              {"files", std::move(files)}, {"files_only_truth", c.files_only_truth},
                              {"files_only_sampled", c.files_only_sampled}};
  return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

int run(const SampleCompareOptions& o) {
  std::vector<std::string> inputs = o.dirs;
  inputs.push_back(o.against);
  if (auto status = refuse_missing_paths(kSampleCompareCommand, inputs)) return *status;
  std::optional<model::PathFilter> filter = make_path_filter(kSampleCompareCommand, o.report);
  if (!filter) return 1;
  const model::SourcePathRules paths(o.report.root, o.report.source_prefix, o.report.path_maps);

  format::ObjectSearch search = format::find_objects({o.against}, {});
  if (!o.report.quiet)
    for (const std::string& w : search.warnings) fail(kSampleCompareCommand, "", "warning: " + w, 0);
  if (!search.conflict.empty()) return fail(kSampleCompareCommand, "", search.conflict);
  if (search.objects.empty())
    return fail(kSampleCompareCommand, o.against, "no .gcno or .gcda files: give the --coverage build of the program");
  model::BuildOptions bo;
  bo.threads = o.report.threads ? o.report.threads : util::default_threads();
  model::BuildResult truth = model::build_project(search.objects, paths, *filter, bo);
  if (!o.report.quiet)
    for (const auto& d : truth.diagnostics) fail(kSampleCompareCommand, "", "warning: " + report::object_warning(d), 0);

  sample::SampledCoverageOptions so;
  so.analysis = make_analysis_options(o.analysis, o.report.root);
  auto cov = sample::load_sampled_coverage(o.dirs, so);
  if (!cov) return fail(kSampleCompareCommand, "", cov.error());
  if (!o.report.quiet) print_analysis_warnings(kSampleCompareCommand, *cov);
  model::ProjectCov sampled;
  model::add_project(sampled, std::move(cov->coverage), paths, *filter);

  const sample::Comparison c = sample::compare_coverage(sampled, truth.project);
  if (c.files.empty())
    return fail(kSampleCompareCommand, "", "the sample and the truth have no source file in common (same program? --path-map?)");
  // --json FILE beside the table (or CSV), as before; --json alone, or -o
  // FILE.json, instead of it.
  if (o.json.asked && !o.json.file.empty())
    if (!write_output_text(kSampleCompareCommand, o.json.file, comparison_json(c))) return 3;
  const auto ratio = [](std::optional<double> x) { return x ? fmt::format("{:.6f}", *x) : std::string(); };
  std::string format = o.csv_summary ? "csv" : "table";
  if (o.json.asked && o.json.file.empty()) format = "json";
  else if (auto by_name = format_of(o.out, {{".json", "json"}, {".csv", "csv"}})) format = *by_name;
  const std::string text =
      format == "json" ? comparison_json(c)
      : format == "csv"
          ? fmt::format("{},{},{:.6f},{},{},{}\n", ratio(recall_of(c.lines)), ratio(precision_of(c.lines)), c.divergence,
                        c.lines.true_positive, c.lines.false_negative, c.lines.false_positive)
          : comparison_table(c, o.functions);
  if (!write_output_text(kSampleCompareCommand, o.out, text)) return 3;
  if (!o.report.quiet && c.lines.true_positive + c.lines.false_positive == 0)
    fail(kSampleCompareCommand, "", "warning: the sample covers no line at all (an empty recording?): no precision", 0);
  if (!o.report.quiet && c.lines.true_positive + c.lines.false_negative == 0)
    fail(kSampleCompareCommand, "", "warning: the truth covers no line at all (its program never ran?): no recall", 0);
  return 0;
}

}  // namespace

int run_sample_compare(int argc, char** argv) {
  CLI::App app{kSampleCompareDescription, std::string(kSampleCompareCommand)};
  app.footer(kSampleCompareFooter);
  app.get_formatter()->column_width(34);
  SampleCompareOptions o;
  app.add_option("DIR", o.dirs,
                 "Recording directories (covkit sample record -o DIR) or perf.data files [default: "
                 "./covkit-sample.data]");
  app.add_option("--against", o.against, "The --coverage build whose .gcda files hold the truth")
      ->required()
      ->type_name("BUILD");
  add_sample_analysis_options(app, o.analysis);
  app.add_flag("--functions", o.functions, "A row per function under each file")->group("Output");
  add_output_file_option(app, o.out,
                         "the comparison; FILE.json as JSON, FILE.csv the one-line summary, else the table")
      ->group("Output");
  add_json_option(app, o.json, "the comparison (per file and function); with FILE, beside the table")
      ->group("Output");
  app.add_flag("--csv-summary", o.csv_summary,
               "Print one line instead of the table: recall,precision,divergence,hits,misses,false_positives")
      ->group("Output");
  add_report_source_options(app, o.report);
  app.add_option("-f,--filter", o.report.filters, "Keep only sources whose path matches this regex (repeatable)")
      ->type_name("REGEX")->allow_extra_args(false)->group("Filters");
  app.add_option("-e,--exclude", o.report.excludes, "Drop sources whose path matches this regex (repeatable)")
      ->type_name("REGEX")->allow_extra_args(false)->group("Filters");
  app.add_option("-j,--jobs", o.report.threads, "Threads for reading the truth [default: all cores]")
      ->type_name("N")
      ->check(whole_number_in(1, 1024));
  app.add_flag("-q,--quiet", o.report.quiet, "No warnings (errors are still printed)");
  if (auto status = parse_command_line(app, argc, argv)) return *status;
  util::use_fast_allocator();  // reads much, allocates much: mimalloc
  take_back_inputs(o.json, o.dirs);
  if (o.dirs.empty()) o.dirs.push_back("covkit-sample.data");
  return run_guarded(kSampleCompareCommand, [&] { return run(o); });
}

}  // namespace covkit::cli
