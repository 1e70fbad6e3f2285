#pragma once
// The table `covkit report` prints when asked for nothing else: per file
// (the project's files first, file_order.h) and in total, lines, functions
// and branches covered (gcovr's text summary, with functions added), and the
// uncovered lines ("Missing", as gcovr lists them: missing_lines.h). Colour
// only when writing to a terminal.
#include <string>

#include "model/project_coverage.h"
#include "report/percent_text.h"  // format_percent, which the table and the gate messages use

namespace covkit::report {

struct TerminalOptions {
  bool color = false;
  size_t width = 0;  // 0: no limit; otherwise long paths are shortened from the left
};

std::string render_terminal_summary(const model::ProjectCov& project, const TerminalOptions& opts);

}  // namespace covkit::report
