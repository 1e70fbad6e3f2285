#include "report/missing_lines.h"

#include <fmt/format.h>

#include <iterator>

namespace covkit::report {

std::string missing_lines_text(const model::FileCov& file) {
  std::string out;
  auto it = std::back_inserter(out);
  uint32_t first = 0, last = 0;  // the open range; first == 0: none
  auto close = [&] {
    if (first == 0) return;
    if (!out.empty()) out += ',';
    if (first == last) fmt::format_to(it, "{}", first);
    else fmt::format_to(it, "{}-{}", first, last);
  };
  for (const model::LineCov& l : file.lines) {  // sorted by number
    if (l.excluded || l.no_count || l.covered()) continue;
    if (first != 0 && l.number == last + 1) {
      last = l.number;
      continue;
    }
    close();
    first = last = l.number;
  }
  close();
  return out;
}

}  // namespace covkit::report
