#pragma once
// Filters that act on the model after it is built: branch kinds known from
// the flow graph's arc flags (never from guessing at source text), and
// restriction to a set of lines (diff coverage).
#include <functional>
#include <string>

#include "model/project_coverage.h"

namespace covkit::model {

struct BranchFilter {
  bool drop_throw = false;        // arcs taken only when an exception propagates
  bool drop_unreachable = false;  // arcs leaving code reachable only through exception/noreturn arcs
};

void filter_branches(ProjectCov& project, const BranchFilter& filter);

// Keeps only lines for which `keep(file, line)` holds (others become
// excluded, as do functions whose first line is not kept) and drops files
// left with no line at all.
void restrict_lines(ProjectCov& project, const std::function<bool(const FileCov&, uint32_t)>& keep);

}  // namespace covkit::model
