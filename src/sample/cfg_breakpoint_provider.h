#pragma once
// The breakpoint plan `covkit sample record --mode breakpoint` uses: for
// each module it finds mapped, the block starts the CFG analysis says are
// not implied by others (sample_analysis.h, breakpoint_sites).
//
// Only what can be shown is planted. By default an image is planted when
// it has line information (a .debug_line of its own) and is no system
// library: bash, cp or a stripped tool in a workload would cost a trap
// per block and show nothing. `--images PATTERN` plants exactly the images
// whose path (or file name) matches one pattern, `--all-images` every one.
// What was left out, and why, goes to the recording (PlanLog), so that
// `sample report` can say it.
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "format/sample_records.h"
#include "sample/breakpoint_plan.h"
#include "sample/sample_analysis.h"

namespace covkit::sample {

struct ImageSelection {
  std::vector<std::string> patterns;  // --images: fnmatch(3) patterns; a pattern without '/' matches the file name
  bool all = false;                   // --all-images
  // Not planted by default: system libraries.
  std::vector<std::string> system_prefixes = AnalysisOptions{}.skip_prefixes;
};

// What the provider left alone, gathered while the program runs (the plan
// server answers from its own thread).
class PlanLog {
 public:
  void left_out(const ModuleIdentity& m, const std::string& reason);
  void unplanted(const std::string& path, const std::vector<std::string>& functions);
  // Into the recording (its left_out and unplanted lists).
  void fill(format::SampleRecording& rec) const;

 private:
  mutable std::mutex mutex_;
  std::vector<format::LeftOutImage> left_out_;
  std::vector<format::UnplantedFunction> unplanted_;
};

// `cache_dir`: where sites are kept per build-id (breakpoint_site_cache.h);
// "" computes them every time. `log` may be null.
BreakpointProvider cfg_breakpoint_provider(ImageSelection selection, std::string cache_dir, PlanWindow window,
                                           std::shared_ptr<PlanLog> log);

// Whether the selection plants the image at `path` regardless of its line
// information (named, or all), never (the reason), or when it has lines.
struct ImageVerdict {
  enum Kind { plant, if_lines, leave } kind = if_lines;
  std::string reason;  // leave
};
ImageVerdict select_image(const ImageSelection& selection, const std::string& path);

}  // namespace covkit::sample
