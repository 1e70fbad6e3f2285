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
};

struct GateFailure {
  std::string what;  // "line", "branch", "function"
  int64_t covered = 0, total = 0;
  double minimum = 0;
};

// A line gate fails when there are no lines at all: nothing was measured (a
// filter or path that matched nothing, damaged objects), as gcovr has it.
// Branch and function gates pass when there are none to cover (C code
// without branches).
std::vector<GateFailure> check_gates(const GateThresholds& gates, const Totals& totals);

}  // namespace covkit::model
