#pragma once
// From regions to what a line shows, by llvm-cov's rules (SegmentBuilder,
// LineCoverageStats): the regions of a file (or function, or expansion)
// are sorted, regions covering the same range are combined, and a segment
// starts wherever the innermost active region changes. A line's count is
// the largest count of the regions that start on it (not gaps), or of the
// segment that wraps into it from an earlier line; a line is "mapped"
// (instrumented) when one of them has a count and it does not start
// skipped (#if'ed out) code.
#include <cstdint>
#include <vector>

#include "clang/function_records.h"

namespace covkit::clang {

struct Segment {
  uint32_t line = 0, column = 0;
  uint64_t count = 0;
  bool has_count = false;
  bool is_region_entry = false;
  bool is_gap = false;
};

// `regions` is sorted and combined in place.
std::vector<Segment> build_segments(std::vector<CountedRegion>& regions);

struct LineCount {
  uint32_t line = 0;
  uint64_t count = 0;
  bool has_multiple_regions = false;  // two or more regions start on the line
};

// The mapped lines of `segments`, in order, as llvm-cov's line iterator
// from line 1 yields them.
std::vector<LineCount> mapped_lines(const std::vector<Segment>& segments);

}  // namespace covkit::clang
