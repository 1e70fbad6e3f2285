#include "clang/coverage_views.h"

#include <algorithm>

namespace covkit::clang {

namespace {

// The expansions and branches of one expansion (no segments: the lcov
// export needs only these).
void expansion_parts(const ExpansionRef& e, std::vector<ExpansionRef>& nested, std::vector<CountedRegion>& branches) {
  const uint32_t file = e.region.expanded_file_id;
  for (const CountedRegion& r : e.function->regions_of(file))
    if (r.kind == RegionKind::kExpansion) nested.push_back({e.function, r});
  for (const CountedRegion& b : e.function->branches_of(file)) branches.push_back(b);
}

// Macros nest a few levels deep; a mapping whose expansions expand each
// other (damage) stops here instead of recursing forever.
constexpr int kMaxExpansionDepth = 64;

void collect_nested_branches(const std::vector<ExpansionRef>& expansions, int depth, uint32_t line,
                             std::vector<CountedRegion>& out) {
  if (depth > kMaxExpansionDepth) return;
  for (const ExpansionRef& e : expansions) {
    if (depth == 0) line = e.region.line_start;
    std::vector<ExpansionRef> nested;
    std::vector<CountedRegion> own;
    expansion_parts(e, nested, own);
    collect_nested_branches(nested, depth + 1, line, out);
    for (CountedRegion b : own) {
      b.line_start = line;
      out.push_back(b);
    }
  }
}

}  // namespace

std::optional<uint32_t> main_file_id(const FunctionRecord& f) { return f.main_file; }

CoverageView view_of_file(const CoverageSet& set, const std::string& filename) {
  CoverageView v;
  const std::optional<uint32_t> key = set.file_key(filename);
  if (!key) {
    v.segments = build_segments(v.regions);
    return v;
  }
  // Sized first: a header every unit includes gathers the regions of
  // thousands of functions.
  size_t regions = 0, branches = 0;
  for (size_t index : set.records_of(filename)) {
    const FunctionRecord& f = set.functions()[index];
    for (uint32_t id = 0; id < f.file_keys.size(); ++id) {
      if (f.file_keys[id] != *key) continue;
      regions += f.regions_of(id).size();
      branches += f.branches_of(id).size();
    }
  }
  v.regions.reserve(regions);
  v.branches.reserve(branches);
  for (size_t index : set.records_of(filename)) {
    const FunctionRecord& f = set.functions()[index];
    // The file id the function is defined in, when that is this file.
    const std::optional<uint32_t> defined_in = f.main_file;
    const int64_t home = defined_in && f.file_keys[*defined_in] == *key ? int64_t(*defined_in) : -1;
    // Regions and branches are stored by file id: each file id that names
    // this file is one run of them, found without looking at the others.
    for (uint32_t id = 0; id < f.file_keys.size(); ++id) {
      if (f.file_keys[id] != *key) continue;
      for (const CountedRegion& r : f.regions_of(id)) {
        v.regions.push_back(r);
        if (int64_t(id) == home && r.kind == RegionKind::kExpansion) v.expansions.push_back({&f, r});
      }
    }
    for (uint32_t id = 0; id < f.file_keys.size(); ++id) {
      if (f.file_keys[id] != *key) continue;
      for (const CountedRegion& b : f.branches_of(id))
        if (b.file_id == b.expanded_file_id) v.branches.push_back(b);
    }
  }
  v.segments = build_segments(v.regions);
  return v;
}

std::vector<CountedRegion> lcov_branches(const CoverageView& file) {
  std::vector<CountedRegion> branches = file.branches;
  collect_nested_branches(file.expansions, 0, 0, branches);
  std::sort(branches.begin(), branches.end(), [](const CountedRegion& i, const CountedRegion& j) {
    return i.line_start < j.line_start || (i.line_start == j.line_start && i.column_start < j.column_start);
  });
  return branches;
}

}  // namespace covkit::clang
