#pragma once
// The table `covkit report` prints when asked for nothing else: per file and
// in total, lines, functions and branches covered (gcovr's text summary, with
// functions added). Colour only when writing to a terminal.
#include <string>

#include "model/project_coverage.h"

namespace covkit::report {

struct TerminalOptions {
  bool color = false;
  size_t width = 0;  // 0: no limit; otherwise long paths are shortened from the left
};

std::string render_terminal_summary(const model::ProjectCov& project, const TerminalOptions& opts);

// "83.3%" with one decimal, truncated toward zero so 99.96% never shows as
// 100.0% (a gate that fails must not print a passing number); "-" when empty.
std::string format_percent(int64_t covered, int64_t total);

}  // namespace covkit::report
