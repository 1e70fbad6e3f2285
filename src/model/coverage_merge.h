#pragma once
// Adding coverage together, by lcov's rules: a line's count is the sum of its
// counts; branches of a line add up by position (instantiations of a template
// list their branches in the same order); functions add up by (mangled) name.
#include "model/project_coverage.h"

namespace covkit::model {

// Adds `from` into `into` (same source file).
void merge_file(FileCov& into, FileCov&& from);
// Adds every file of `from` into `into`, keeping `into.files` sorted by path.
void merge_project(ProjectCov& into, ProjectCov&& from);
// Sorts lines and functions and merges duplicates, after a reader or builder
// appended them in any order.
void normalize(FileCov& f);
// Sorts files by path and merges files with the same path; drops files
// that hold no line and no function.
void normalize(ProjectCov& p);

}  // namespace covkit::model
