#pragma once
// Builds the project model from a build's objects: each (notes, data) pair is
// computed the way `covkit gcov -j -b` computes it (one gcov session per data
// file, in parallel), its sources are resolved and filtered, and the results
// are added together by lcov's rules. Objects that never ran count as zero.
#include <atomic>
#include <functional>
#include <string>
#include <vector>

#include "format/object_files.h"
#include "model/path_filter.h"
#include "model/project_coverage.h"
#include "model/source_paths.h"

namespace covkit::model {

struct BuildOptions {
  unsigned threads = 1;
  // Called from worker threads as objects complete (done, total); may be empty.
  std::function<void(size_t, size_t)> progress;
};

struct BuildResult {
  ProjectCov project;
  std::vector<std::string> messages;  // warnings, one line each, in object order
  size_t objects_failed = 0;          // notes unreadable/corrupt: nothing usable
};

BuildResult build_project(const std::vector<format::ObjectFiles>& objects, const SourcePathRules& paths,
                          const PathFilter& filter, const BuildOptions& opts);

// Counter values beyond this are reported as suspicious (real programs do not
// run a line 2^56 times; such values come from corrupt or racing counters).
inline constexpr int64_t kSuspiciousCount = int64_t(1) << 56;

}  // namespace covkit::model
