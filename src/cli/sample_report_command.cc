// `covkit sample report DIR... [report options]`: recordings of
// uninstrumented runs, analysed (sample/sampled_coverage) into the model
// that every `covkit report` view, filter and gate takes (report_project).
#include "cli/cli11.h"
#include <fmt/format.h>

#include <string>
#include <vector>

#include "cli/command_line.h"
#include "cli/report_command.h"
#include "cli/report_options.h"
#include "cli/sample_command.h"
#include "cli/sample_options.h"
#include "model/load_coverage_file.h"
#include "sample/sampled_coverage.h"
#include "util/fast_allocator.h"

namespace covkit::cli {

namespace {

constexpr std::string_view kSampleReportCommand = "covkit sample report";

constexpr const char* kSampleReportDescription =
    "Turns sample recordings (covkit sample record, import-perf) into coverage\n"
    "of the program's sources and reports it as `covkit report` does: terminal\n"
    "summary, lcov, Cobertura, JSON, HTML, gates. Several recordings (runs of\n"
    "one program) are added together before the analysis, so what one run\n"
    "proves helps the inference on the others. A perf.data file (perf record,\n"
    "with or without -b) may stand for a recording: it is imported on the fly.\n"
    "\n"
    "Each module the program mapped is disassembled into control-flow graphs;\n"
    "the evidence (branch vectors, stepped addresses, call stacks, breakpoint\n"
    "hits) marks the blocks that provably ran; --inference adds the blocks that\n"
    "must have run with them; DWARF line tables (inlined code included) give\n"
    "the lines. Every line with code is listed, 0 where nothing showed it ran.\n"
    "Counts are estimates (samples that saw the line), not execution counts.\n"
    "Functions come from the symbol table; in a stripped file from .eh_frame,\n"
    "named fn_<hex address>, listed under the file's path with no lines.\n"
    "System libraries (/lib, /usr/lib) are left out unless --include-system.\n";

constexpr const char* kSampleReportFooter =
    "Exit status: 0 when the report was written (and the gates passed); 1 on an\n"
    "error (a recording cannot be read); 2 when a --fail-under gate failed; 3\n"
    "when an output could not be written.\n"
    "\n"
    "Examples:\n"
    "  covkit sample report                    ./covkit-sample.data, as sample record wrote it\n"
    "  covkit sample report run1 run2 run3 --html cov/ --show-inferred\n"
    "  covkit sample report rec --inference sound --lcov sampled.info\n"
    "  covkit sample report perf.data --html cov/          # perf record's samples\n"
    "\n"
    "The manual is docs/covkit-sample.md; every output, filter and gate option\n"
    "is that of `covkit report` (docs/covkit-report.md).";

struct SampleReportOptions {
  std::vector<std::string> dirs;
  SampleAnalysisFlags analysis;
  bool show_inferred = false;
  ReportOptions report;
};

int run(const SampleReportOptions& o) {
  if (auto status = refuse_missing_paths(kSampleReportCommand, o.dirs)) return *status;
  sample::SampledCoverageOptions so;
  so.analysis = make_analysis_options(o.analysis, o.report.root);
  so.mark_inferred = o.show_inferred;
  auto cov = sample::load_sampled_coverage(o.dirs, so);
  if (!cov) return fail(kSampleReportCommand, "", cov.error());
  if (!o.report.quiet) print_analysis_warnings(kSampleReportCommand, *cov);
  return report_coverage(o.report, std::move(cov->coverage), kSampleReportCommand);
}

}  // namespace

int run_sample_report(int argc, char** argv) {
  CLI::App app{kSampleReportDescription, std::string(kSampleReportCommand)};
  app.footer(kSampleReportFooter);
  app.get_formatter()->column_width(34);
  SampleReportOptions o;
  app.add_option("DIR", o.dirs,
                 "Recording directories (covkit sample record -o DIR) or perf.data files [default: "
                 "./covkit-sample.data, where covkit sample record writes]");
  add_sample_analysis_options(app, o.analysis);
  app.add_flag("--show-inferred", o.show_inferred,
               "Mark lines covered only by inference, never observed: \"inferred\": true in --json, an 'i' in --html")
      ->group("Analysis");
  add_report_source_options(app, o.report);
  add_report_view_options(app, o.report);
  if (auto status = parse_command_line(app, argc, argv)) return *status;
  util::use_fast_allocator();  // reads much, allocates much: mimalloc
  if (auto bad = resolve_report_outputs(o.report, &o.dirs)) return fail(kSampleReportCommand, "", *bad);
  if (o.dirs.empty()) o.dirs.push_back("covkit-sample.data");
  o.report.sampled_counts = true;
  return run_guarded(kSampleReportCommand, [&] { return run(o); });
}

}  // namespace covkit::cli
