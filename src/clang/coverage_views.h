#pragma once
// What llvm-cov shows of a source file (CoverageMapping::getCoverageForFile)
// and of a macro expansion (getCoverageForExpansion): the segments of every
// region any function has in that file, the branch regions written there,
// and the expansions made there by the functions defined there.
#include <optional>
#include <string>
#include <vector>

#include "clang/coverage_segments.h"
#include "clang/function_records.h"

namespace covkit::clang {

struct ExpansionRef {
  const FunctionRecord* function = nullptr;
  CountedRegion region;  // the expansion region; it expands region.expanded_file_id
};

struct CoverageView {
  std::vector<Segment> segments;
  std::vector<CountedRegion> regions;   // sorted and combined (what the segments came from)
  std::vector<CountedRegion> branches;  // in record order
  std::vector<ExpansionRef> expansions;
};

CoverageView view_of_file(const CoverageSet& set, const std::string& filename);

// The file id a function is defined in: the first one no expansion expands
// (found when the record was made).
std::optional<uint32_t> main_file_id(const FunctionRecord& f);

// The branches llvm-cov's lcov export lists for a file: its own, then those
// of the expansions made in it (nested ones first), each of those placed on
// the line of the outermost expansion; sorted by line, then column, with
// the same (unstable) sort, so that pairs on one line come in its order.
std::vector<CountedRegion> lcov_branches(const CoverageView& file);

}  // namespace covkit::clang
