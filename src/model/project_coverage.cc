#include "model/project_coverage.h"

#include <algorithm>
#include <tuple>

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
  regions += o.regions;
  regions_covered += o.regions_covered;
  return *this;
}

Totals totals(std::span<const LineCov> lines) {
  Totals t;
  for (const LineCov& l : lines) {
    if (l.excluded) continue;
    if (!l.no_count) {
      ++t.lines;
      t.lines_covered += l.covered();
    }
    for (const BranchCov& b : l.branches) {
      ++t.branches;
      t.branches_covered += b.count > 0;
    }
  }
  return t;
}

Totals totals(const FileCov& f) {
  Totals t = totals(std::span<const LineCov>(f.lines));
  for (const FunctionCov& fn : f.functions) {
    if (fn.excluded) continue;
    ++t.functions;
    t.functions_covered += fn.covered();
  }
  // Regions by llvm-cov's rule: functions that start at one place
  // (template instantiations) are one, with the most regions and the most
  // covered of any of them.
  std::vector<const FunctionCov*> counted;
  for (const FunctionCov& fn : f.functions)
    if (!fn.excluded && fn.regions > 0) counted.push_back(&fn);
  std::stable_sort(counted.begin(), counted.end(), [](const FunctionCov* a, const FunctionCov* b) {
    return std::tie(a->start_line, a->start_column) < std::tie(b->start_line, b->start_column);
  });
  for (size_t i = 0; i < counted.size();) {
    uint32_t most = 0, most_covered = 0;
    size_t j = i;
    for (; j < counted.size() && counted[j]->start_line == counted[i]->start_line &&
           counted[j]->start_column == counted[i]->start_column;
         ++j) {
      most = std::max(most, counted[j]->regions);
      most_covered = std::max(most_covered, counted[j]->regions_covered);
    }
    t.regions += most;
    t.regions_covered += most_covered;
    i = j;
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
