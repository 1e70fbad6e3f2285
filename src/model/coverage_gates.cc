#include "model/coverage_gates.h"

namespace covkit::model {

std::vector<GateFailure> check_gates(const GateThresholds& gates, const Totals& t) {
  std::vector<GateFailure> failed;
  auto gate = [&](const char* what, const std::optional<double>& minimum, int64_t covered, int64_t total,
                  bool empty_passes) {
    if (!minimum) return;
    if (total == 0 ? !empty_passes : percent(covered, total) + 1e-9 < *minimum)
      failed.push_back({what, covered, total, *minimum});
  };
  gate("line", gates.line, t.lines_covered, t.lines, gates.no_lines_pass);
  gate("branch", gates.branch, t.branches_covered, t.branches, true);
  gate("function", gates.function, t.functions_covered, t.functions, true);
  return failed;
}

}  // namespace covkit::model
