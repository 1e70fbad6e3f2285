#pragma once
// Diff coverage (`covkit report --diff REV`): the project restricted to the
// lines changed since REV in the git repository that holds `root`.
#include <string>

#include "model/project_coverage.h"
#include "util/expected.h"

namespace covkit::model {

// What the change was compared with: the checkout's top level and how
// many of the project's files (with lines) are inside it. None inside: the
// change could not be matched at all (a build elsewhere, paths not mapped),
// which is not a change without code.
struct DiffScope {
  std::string toplevel;
  size_t files_in_checkout = 0;
};

// Lines outside the change are excluded. Paths are compared as real paths:
// the build may name the checkout through a symbolic link (GCC records
// $PWD) while git reports the resolved top level.
Expected<DiffScope> restrict_to_diff(ProjectCov& project, const std::string& rev, const std::string& root);

}  // namespace covkit::model
