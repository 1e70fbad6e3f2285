#include "sample/sampled_coverage.h"

#include <algorithm>

#include "sample/recording_input.h"
#include "sample/recording_merge.h"
#include "util/printable.h"

namespace covkit::sample {

namespace {

void mark_inferred_lines(SampleCoverage& cov) {
  for (model::FileCov& f : cov.coverage.files) {
    auto it = cov.inferred_only_lines.find(f.path);
    if (it == cov.inferred_only_lines.end()) continue;
    for (model::LineCov& l : f.lines)
      l.inferred = std::binary_search(it->second.begin(), it->second.end(), l.number);
  }
}

}  // namespace

Expected<SampleCoverage> load_sampled_coverage(const std::vector<std::string>& dirs,
                                               const SampledCoverageOptions& options) {
  std::vector<format::SampleRecording> recordings;
  for (const std::string& dir : dirs) {
    auto rec = read_recording_input(dir);
    if (!rec) {
      Error e = rec.error();
      e.message = util::printable(dir) + ": " + e.message;
      return e;
    }
    recordings.push_back(std::move(*rec));
  }
  format::SampleRecording all = merge_recordings(std::move(recordings));
  auto cov = analyze_recording(all, options.analysis);
  if (!cov) return cov;
  for (const std::string& w : all.warnings) cov->warnings.push_back(w);
  if (options.mark_inferred) mark_inferred_lines(*cov);
  return cov;
}

}  // namespace covkit::sample
