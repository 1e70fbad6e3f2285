#pragma once
// The --fail-under gates of `covkit report`: which minimums the totals miss.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "model/project_coverage.h"

namespace covkit::model {

struct GateThresholds {
  std::optional<double> line, branch, function;  // percentages
  // No lines pass the line gate too: a --diff whose changes hold no code
  // (a change to the documentation) has nothing to measure, as diff-cover
  // has it, where the project itself has lines.
  bool no_lines_pass = false;
};

struct GateFailure {
  std::string what;  // "line", "branch", "function"
  int64_t covered = 0, total = 0;
  double minimum = 0;
};

// A line gate fails when there are no lines at all: nothing was measured (a
// filter or path that matched nothing, damaged objects), as gcovr has it;
// unless `no_lines_pass`.
// Branch and function gates pass when there are none to cover (C code
// without branches).
std::vector<GateFailure> check_gates(const GateThresholds& gates, const Totals& totals);

}  // namespace covkit::model
