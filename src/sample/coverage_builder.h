#pragma once
// One analyzed module's blocks onto source lines and functions, as
// coverage records (model::to_model then applies the project model's
// rules: sorting, one entry per line, sums across modules).
//
// Lines: every line that has an is_stmt row of the line table inside an
// analyzed function (rows of no length included: with location views that
// is how gcc marks where most statements start) is executable and listed,
// count 0 when not covered (so reports show what was missed). Rows with is_stmt false are not enough to
// make a line executable: gcc emits them for instructions scheduled away
// from their statement, and gcov users do not expect such lines (often a
// declaration or a closing brace) to appear on their own. A listed line is
// covered when an executed block overlaps any row of it (stmt or not): the
// code ran. Its count is the largest count of those blocks.
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "format/coverage_records.h"
#include "sample/inference.h"
#include "sample/line_table.h"
#include "sample/module_cfg.h"

namespace covkit::sample {

struct ModuleBlockStates {
  std::vector<std::vector<BlockState>> functions;  // parallel to ModuleCfg::functions
};

struct ModuleCoverage {
  format::CoverageRecords records;
  std::map<std::string, std::set<uint32_t>> inferred_only;  // report path -> lines covered only by inference
};

// `source_root`: absolute source paths inside it are shown relative to it.
// Without debug information, functions are listed under the module's own
// path with no lines (function-level results).
ModuleCoverage module_coverage(const ModuleCfg& module, const LineTable& lines, const ModuleBlockStates& states,
                               const std::string& source_root);

// The path reports show for an absolute source path.
std::string report_path(const std::string& absolute, const std::string& source_root);

}  // namespace covkit::sample
