#pragma once
// Diff coverage (`covkit report --diff REV`): the project restricted to the
// lines changed since REV in the git repository that holds `root`.
#include <string>

#include "model/project_coverage.h"
#include "util/expected.h"

namespace covkit::model {

// Lines outside the change are excluded. Paths are compared as real paths:
// the build may name the checkout through a symbolic link (GCC records
// $PWD) while git reports the resolved top level.
Expected<void> restrict_to_diff(ProjectCov& project, const std::string& rev, const std::string& root);

}  // namespace covkit::model
