#pragma once
// The uncovered lines of a file as gcovr's text report lists them in its
// "Missing" column: line numbers in order, runs of consecutive numbers as
// one range ("17-18,20,22-23"). A line is missing when it counts as a line
// of code in the totals (not excluded) and never ran; a blank line or a
// comment between two missing lines breaks the range, as in gcovr 5.2.
#include <string>

#include "model/project_coverage.h"

namespace covkit::report {

std::string missing_lines_text(const model::FileCov& file);

}  // namespace covkit::report
