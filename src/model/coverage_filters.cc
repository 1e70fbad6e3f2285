#include "model/coverage_filters.h"

#include <algorithm>
#include <vector>

namespace covkit::model {

void filter_branches(ProjectCov& project, const BranchFilter& filter) {
  if (!filter.drop_throw && !filter.drop_unreachable) return;
  for (FileCov& f : project.files)
    for (LineCov& l : f.lines)
      std::erase_if(l.branches, [&](const BranchCov& b) {
        return (filter.drop_throw && b.is_throw) || (filter.drop_unreachable && b.unreachable);
      });
}

void restrict_lines(ProjectCov& project, const std::function<bool(const FileCov&, uint32_t)>& keep) {
  for (FileCov& f : project.files) {
    for (LineCov& l : f.lines)
      if (!keep(f, l.number)) l.excluded = true;
    for (FunctionCov& fn : f.functions)
      if (!keep(f, fn.start_line)) fn.excluded = true;
  }
  std::erase_if(project.files, [](const FileCov& f) {
    return std::none_of(f.lines.begin(), f.lines.end(), [](const LineCov& l) { return !l.excluded; });
  });
}

}  // namespace covkit::model
