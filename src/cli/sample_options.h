#pragma once
// The analysis options `covkit sample report` and `compare` share.
#include "cli/cli11.h"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cli/report_options.h"
#include "model/path_filter.h"
#include "sample/sample_analysis.h"

namespace covkit::cli {

struct SampleAnalysisFlags {
  std::string inference = "dominators";
  bool include_system = false;
};

void add_sample_analysis_options(CLI::App& app, SampleAnalysisFlags& flags);
sample::AnalysisOptions make_analysis_options(const SampleAnalysisFlags& flags, const std::string& root);
// One line per module warning and recording warning, on stderr.
void print_analysis_warnings(std::string_view command, const sample::SampleCoverage& cov);

// The first of `paths` that cannot be found, said as every command says it
// ("covkit sample report: rec: No such file or directory"; CLI11's
// ExistingPath said "DIR: Path does not exist: rec (see ... --help)"):
// status 1, or nullopt when all are there.
std::optional<int> refuse_missing_paths(std::string_view command, const std::vector<std::string>& paths);

}  // namespace covkit::cli
