#include "clang/coverage_segments.h"

#include <algorithm>
#include <optional>
#include <utility>

namespace covkit::clang {

namespace {

using Loc = std::pair<uint32_t, uint32_t>;  // line, column

Loc start_of(const CountedRegion& r) { return {r.line_start, r.column_start}; }
Loc end_of(const CountedRegion& r) { return {r.line_end, r.column_end}; }

class SegmentBuilder {
 public:
  explicit SegmentBuilder(std::vector<Segment>& out) : segments_(out) {}

  void build(const std::vector<CountedRegion>& regions) {
    for (size_t i = 0; i < regions.size(); ++i) {
      const CountedRegion& region = regions[i];
      const Loc start = start_of(region);
      // Active regions that end before this one starts are completed.
      auto completed = std::stable_partition(active_.begin(), active_.end(),
                                             [&](const CountedRegion* r) { return !(end_of(*r) <= start); });
      if (completed != active_.end()) complete_until(start, size_t(completed - active_.begin()));

      const bool gap = region.kind == RegionKind::kGap;
      if (start == end_of(region)) {
        // Zero-length regions never become active: the last one (or a
        // skipped one) ends what is open; others take their predecessor's count.
        const bool skipped = i + 1 == regions.size() || region.kind == RegionKind::kSkipped;
        start_segment(active_.empty() ? region : *active_.back(), start, !gap, skipped);
        if (skipped && !active_.empty()) start_segment(*active_.back(), start, false);
        continue;
      }
      if (i + 1 == regions.size() || start != start_of(regions[i + 1])) start_segment(region, start, !gap);
      active_.push_back(&region);
    }
    if (!active_.empty()) complete_until(std::nullopt, 0);
  }

 private:
  void start_segment(const CountedRegion& r, Loc at, bool region_entry, bool emit_skipped = false) {
    const bool has_count = !emit_skipped && r.kind != RegionKind::kSkipped;
    // A segment that changes nothing is not emitted.
    if (!segments_.empty() && !region_entry && !emit_skipped) {
      const Segment& last = segments_.back();
      if (last.has_count == has_count && last.count == r.execution_count && !last.is_region_entry) return;
    }
    Segment s;
    s.line = at.first;
    s.column = at.second;
    s.is_region_entry = region_entry;
    if (has_count) {
      s.count = r.execution_count;
      s.has_count = true;
      s.is_gap = r.kind == RegionKind::kGap;
    }
    segments_.push_back(s);
  }

  // Emits segments for the active regions from `first` on, which end before
  // `loc` (or all of them when there is no next region), then drops them.
  void complete_until(std::optional<Loc> loc, size_t first) {
    std::stable_sort(active_.begin() + long(first), active_.end(),
                     [](const CountedRegion* l, const CountedRegion* r) { return end_of(*l) < end_of(*r); });
    for (size_t i = first + 1; i < active_.size(); ++i) {
      const CountedRegion* done = active_[i];
      const Loc seg_loc = end_of(*active_[i - 1]);
      if (loc && seg_loc == *loc) break;
      if (seg_loc == end_of(*done)) continue;
      // The last completed region that ends here gives the count.
      for (size_t j = i + 1; j < active_.size(); ++j)
        if (end_of(*done) == end_of(*active_[j])) done = active_[j];
      start_segment(*done, seg_loc, false);
    }
    const CountedRegion* last = active_.back();
    if (first != 0 && end_of(*last) != *loc) {
      // The region still open around them fills the gap up to the next one.
      start_segment(*active_[first - 1], end_of(*last), false);
    } else if (first == 0 && (!loc || *loc != end_of(*last))) {
      // Nothing open: what follows (between functions) is not code.
      start_segment(*last, end_of(*last), false, true);
    }
    active_.erase(active_.begin() + long(first), active_.end());
  }

  std::vector<Segment>& segments_;
  std::vector<const CountedRegion*> active_;
};

// Sorted by start, the enclosing region first, then code before expansion
// before skipped (the kind the combined region keeps).
void sort_nested(std::vector<CountedRegion>& regions) {
  std::sort(regions.begin(), regions.end(), [](const CountedRegion& l, const CountedRegion& r) {
    if (start_of(l) != start_of(r)) return start_of(l) < start_of(r);
    if (end_of(l) != end_of(r)) return end_of(r) < end_of(l);
    return l.kind < r.kind;
  });
}

// Regions of the same range become one; counts add up for regions of the
// kind the first one has (a macro expanded twice; not code and the
// expansion that contains it, which would count twice).
void combine(std::vector<CountedRegion>& regions) {
  if (regions.empty()) return;
  size_t active = 0;
  for (size_t i = 1; i < regions.size(); ++i) {
    if (start_of(regions[active]) != start_of(regions[i]) || end_of(regions[active]) != end_of(regions[i])) {
      ++active;
      if (active != i) regions[active] = regions[i];
      continue;
    }
    if (regions[i].kind == regions[active].kind) regions[active].execution_count += regions[i].execution_count;
  }
  regions.resize(active + 1);
}

bool starts_region(const Segment& s) { return !s.is_gap && s.has_count && s.is_region_entry; }

}  // namespace

std::vector<Segment> build_segments(std::vector<CountedRegion>& regions) {
  sort_nested(regions);
  combine(regions);
  std::vector<Segment> segments;
  SegmentBuilder(segments).build(regions);
  return segments;
}

std::vector<LineCount> mapped_lines(const std::vector<Segment>& segments) {
  std::vector<LineCount> out;
  const Segment* wrapped = nullptr;
  size_t next = 0;
  uint32_t line = 1;
  size_t line_begin = 0, line_end = 0;  // the previous line's segments
  while (next < segments.size()) {
    if (line_end > line_begin) wrapped = &segments[line_end - 1];
    line_begin = next;
    while (next < segments.size() && segments[next].line == line) ++next;
    line_end = next;
    unsigned starts = 0;
    for (size_t i = line_begin; i < line_end && starts < 2; ++i) starts += starts_region(segments[i]);
    const bool starts_skipped =
        line_end > line_begin && !segments[line_begin].has_count && segments[line_begin].is_region_entry;
    const bool mapped = !starts_skipped && ((wrapped && wrapped->has_count) || starts > 0);
    if (mapped) {
      LineCount lc;
      lc.line = line;
      lc.has_multiple_regions = starts > 1;
      if (wrapped) lc.count = wrapped->count;
      if (starts > 0)
        for (size_t i = line_begin; i < line_end; ++i)
          if (starts_region(segments[i])) lc.count = std::max(lc.count, segments[i].count);
      out.push_back(lc);
    }
    // Lines between segments: nothing starts on them, the wrapped segment
    // is the previous line's last; skip ahead in one step when nothing is
    // mapped (a file whose first code is on line 100000).
    if (line_end == line_begin && !(wrapped && wrapped->has_count) && next < segments.size() &&
        segments[next].line > line + 1)
      line = segments[next].line;
    else
      ++line;
  }
  return out;
}

}  // namespace covkit::clang
