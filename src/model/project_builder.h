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
#include "model/session_diagnostics.h"
#include "model/source_paths.h"

namespace covkit::model {

struct BuildOptions {
  unsigned threads = 1;
  // Called from worker threads as objects complete (done, total); may be empty.
  std::function<void(size_t, size_t)> progress;
  // Every line of a function's own range names the function and its count
  // there (LineCov::instances): templates instantiated in several objects
  // once each. prune_instances keeps what a report shows. Without it no
  // line names any (a report that does not show them drops them anyway).
  bool instances = false;
  // Called on the calling thread when a phase ends ("objects read", "copies
  // merged"), for COVKIT_TIMING; may be empty.
  std::function<void(const char*)> phase;
};

struct BuildResult {
  ProjectCov project;
  // What a report's user should hear of, in object order: every session
  // diagnostic except the normal ones (an object that never ran, a notes
  // file without functions), and suspicious counters.
  std::vector<Diagnostic> diagnostics;
  size_t objects_failed = 0;   // notes unreadable or unusable: nothing of the object is reported
  size_t objects_damaged = 0;  // inputs damaged or unreadable: counts missing or partial (failed included)
  // Of the damaged, those whose only damage is a data file that ends early
  // or is damaged after its header: the counts read up to there are
  // reported, as gcov reports them (what there is of the run is there).
  size_t objects_partial = 0;
};

BuildResult build_project(const std::vector<format::ObjectFiles>& objects, const SourcePathRules& paths,
                          const PathFilter& filter, const BuildOptions& opts);

}  // namespace covkit::model
