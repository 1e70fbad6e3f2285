#pragma once
// Recording directories into coverage: each read (format/), all added
// together (recording_merge), analysed once (sample_analysis). What
// `covkit sample report` and `covkit sample compare` start from.
#include <string>
#include <vector>

#include "sample/sample_analysis.h"
#include "util/expected.h"

namespace covkit::sample {

struct SampledCoverageOptions {
  AnalysisOptions analysis;
  bool mark_inferred = false;  // set LineCov::inferred on lines known only by inference
};

// An error names the directory that could not be read.
Expected<SampleCoverage> load_sampled_coverage(const std::vector<std::string>& dirs,
                                               const SampledCoverageOptions& options);

}  // namespace covkit::sample
