#pragma once
// The order in which views list files: the project's own files (shown
// relative to --root, or to --source-prefix) before everything else
// (absolute paths: other checkouts, third-party trees, kept system headers),
// each part in path order.
#include <string_view>
#include <vector>

#include "model/project_coverage.h"

namespace covkit::report {

// A path as reports show it is the project's when it is relative.
bool is_project_path(std::string_view shown_path);

// `project.files` in that order.
std::vector<const model::FileCov*> project_files_first(const model::ProjectCov& project);

}  // namespace covkit::report
