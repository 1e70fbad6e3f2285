#include "model/project_coverage.h"

#include <algorithm>

namespace covkit::model {

LineCov* FileCov::find_line(uint32_t number) {
  auto it = std::lower_bound(lines.begin(), lines.end(), number,
                             [](const LineCov& l, uint32_t n) { return l.number < n; });
  return it != lines.end() && it->number == number ? &*it : nullptr;
}

const LineCov* FileCov::find_line(uint32_t number) const { return const_cast<FileCov*>(this)->find_line(number); }

Totals& Totals::operator+=(const Totals& o) {
  lines += o.lines;
  lines_covered += o.lines_covered;
  functions += o.functions;
  functions_covered += o.functions_covered;
  branches += o.branches;
  branches_covered += o.branches_covered;
  return *this;
}

Totals totals(const FileCov& f) {
  Totals t;
  for (const LineCov& l : f.lines) {
    if (l.excluded) continue;
    ++t.lines;
    t.lines_covered += l.covered();
    for (const BranchCov& b : l.branches) {
      ++t.branches;
      t.branches_covered += b.count > 0;
    }
  }
  for (const FunctionCov& fn : f.functions) {
    if (fn.excluded) continue;
    ++t.functions;
    t.functions_covered += fn.covered();
  }
  return t;
}

Totals totals(const ProjectCov& p) {
  Totals t;
  for (const FileCov& f : p.files) t += totals(f);
  return t;
}

double percent(int64_t covered, int64_t total) { return total == 0 ? 100.0 : 100.0 * double(covered) / double(total); }

}  // namespace covkit::model
