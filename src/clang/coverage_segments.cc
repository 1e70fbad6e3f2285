#include "clang/coverage_segments.h"

#include <algorithm>
#include <bit>
#include <optional>
#include <utility>

namespace covkit::clang {

namespace {

// A line and column in one word, ordered as the pair (one compare: the
// pair's, through operator<=>, was a sixth of building the segments).
using Loc = uint64_t;
constexpr Loc loc(uint32_t line, uint32_t column) { return uint64_t(line) << 32 | column; }
constexpr uint32_t line_of(Loc l) { return uint32_t(l >> 32); }
constexpr uint32_t column_of(Loc l) { return uint32_t(l); }

Loc start_of(const CountedRegion& r) { return loc(r.line_start, r.column_start); }
Loc end_of(const CountedRegion& r) { return loc(r.line_end, r.column_end); }

class SegmentBuilder {
 public:
  explicit SegmentBuilder(std::vector<Segment>& out) : segments_(out) {}

  void build(const std::vector<CountedRegion>& regions) {
    for (size_t i = 0; i < regions.size(); ++i) {
      const CountedRegion& region = regions[i];
      const Loc start = start_of(region);
      // Active regions that end before this one starts are completed.
      if (const size_t open = partition_open(start); open != active_.size()) complete_until(start, open);

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
      activate(region);
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
    s.line = line_of(at);
    s.column = column_of(at);
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
    sort_by_end(first);
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
    drop_from(first);
  }

  // The active regions still open at `start` first, those that end before
  // it after them, each group in its order (std::stable_partition's
  // result). Returns where the second group starts. The regions that end
  // are nearly always the last ones opened (a switch's cases, the code
  // after each return: dozens open at once, all ending together), and the
  // earliest end before each place in active_ tells when no other did: then
  // only they are looked at.
  size_t partition_open(Loc start) {
    size_t open = active_.size();
    while (open > 0 && end_of(*active_[open - 1]) <= start) --open;
    if (open == 0 || earliest_end_[open - 1] > start) return open;
    ended_.clear();
    size_t kept = 0;
    for (const CountedRegion* r : active_) {
      if (end_of(*r) <= start)
        ended_.push_back(r);
      else
        active_[kept++] = r;
    }
    std::copy(ended_.begin(), ended_.end(), active_.begin() + long(kept));
    earliest_end_.clear();
    for (size_t i = 0; i < kept; ++i) push_earliest_end(*active_[i]);
    return kept;
  }

  void activate(const CountedRegion& r) {
    active_.push_back(&r);
    push_earliest_end(r);
  }
  void push_earliest_end(const CountedRegion& r) {
    earliest_end_.push_back(earliest_end_.empty() ? end_of(r) : std::min(earliest_end_.back(), end_of(r)));
  }
  void drop_from(size_t first) {
    active_.erase(active_.begin() + long(first), active_.end());
    earliest_end_.resize(std::min(earliest_end_.size(), first));
  }

  // active_[first..] sorted by end, stably. Regions nest a few deep: an
  // insertion sort, unless damage nests them deeper.
  void sort_by_end(size_t first) {
    auto by_end = [](const CountedRegion* l, const CountedRegion* r) { return end_of(*l) < end_of(*r); };
    if (active_.size() - first > 32) {
      std::stable_sort(active_.begin() + long(first), active_.end(), by_end);
      return;
    }
    for (size_t i = first + 1; i < active_.size(); ++i) {
      const CountedRegion* r = active_[i];
      size_t j = i;
      for (; j > first && by_end(r, active_[j - 1]); --j) active_[j] = active_[j - 1];
      active_[j] = r;
    }
  }

  std::vector<Segment>& segments_;
  std::vector<const CountedRegion*> active_;
  std::vector<const CountedRegion*> ended_;  // partition_open's room
  // earliest_end_[i]: the earliest end of active_[0..i] (the regions
  // partition_open moved after the open ones have none: they are dropped).
  std::vector<Loc> earliest_end_;
};

// The order sort_nested gives, through one word per region when its
// lines, columns and kinds fit in 64 bits together (numbered down from
// their largest, so that a stable sort of the words by value is the
// order). An open end column (UINT32_MAX: to the end of its line) sorts
// after every other column and is numbered so. Nullopt when they do not
// fit (damage, or a file of a billion lines).
std::optional<std::vector<uint64_t>> packed_keys(const std::vector<CountedRegion>& regions) {
  uint32_t max_line = 0, max_column = 0, max_kind = 0;
  bool open_end = false;
  for (const CountedRegion& r : regions) {
    max_line = std::max({max_line, r.line_start, r.line_end});
    max_column = std::max(max_column, r.column_start);
    if (r.column_end == UINT32_MAX)
      open_end = true;
    else
      max_column = std::max(max_column, r.column_end);
    max_kind = std::max(max_kind, uint32_t(r.kind));
  }
  const uint32_t top_column = max_column + (open_end ? 1 : 0);  // max_column < UINT32_MAX here when open_end
  if (open_end && max_column == UINT32_MAX) return std::nullopt;
  const int line_bits = std::bit_width(max_line), column_bits = std::bit_width(top_column),
            kind_bits = std::bit_width(max_kind);
  if (2 * line_bits + 2 * column_bits + kind_bits > 64) return std::nullopt;
  const uint64_t line_mask = (uint64_t(1) << line_bits) - 1, column_mask = (uint64_t(1) << column_bits) - 1;
  std::vector<uint64_t> keys(regions.size());
  for (size_t i = 0; i < regions.size(); ++i) {
    const CountedRegion& r = regions[i];
    const uint64_t end_column = r.column_end == UINT32_MAX ? top_column : r.column_end;
    uint64_t k = r.line_start;
    k = k << column_bits | r.column_start;
    k = k << line_bits | (line_mask - r.line_end);  // the later end first
    k = k << column_bits | (column_mask - end_column);
    k = k << kind_bits | uint32_t(r.kind);
    keys[i] = k;
  }
  return keys;
}

// Indexes 0..n-1 ordered by keys[index], stably (least significant digit
// first, eleven bits a pass, passes whose digit all share skipped).
std::vector<uint32_t> radix_order(const std::vector<uint64_t>& keys) {
  constexpr int kDigitBits = 11;
  constexpr size_t kBuckets = size_t(1) << kDigitBits;
  const size_t n = keys.size();
  std::vector<uint32_t> order(n), next(n);
  for (size_t i = 0; i < n; ++i) order[i] = uint32_t(i);
  uint64_t all_bits = 0;
  for (uint64_t k : keys) all_bits |= k;
  std::vector<uint32_t> count(kBuckets);
  for (int shift = 0; shift < 64 && (all_bits >> shift) != 0; shift += kDigitBits) {
    std::fill(count.begin(), count.end(), 0);
    for (uint64_t k : keys) ++count[(k >> shift) & (kBuckets - 1)];
    if (count[(keys[0] >> shift) & (kBuckets - 1)] == n) continue;
    uint32_t sum = 0;
    for (uint32_t& c : count) sum += std::exchange(c, sum);
    for (uint32_t index : order) next[count[(keys[index] >> shift) & (kBuckets - 1)]++] = index;
    order.swap(next);
  }
  return order;
}

// Sorted by start, the enclosing region first, then code before expansion
// before skipped (the kind the combined region keeps); stable. A header
// every unit includes gathers tens of thousands of 48-byte regions, and
// sorting them in place compared line/column pairs and moved each many
// times (7% of a zstd report): they are ordered by a radix sort of one
// word each, or a comparison sort of three, and moved once.
void sort_nested(std::vector<CountedRegion>& regions) {
  const size_t n = regions.size();
  if (n < 2) return;
  std::vector<uint32_t> order;
  if (auto packed = packed_keys(regions)) {
    if (std::is_sorted(packed->begin(), packed->end())) return;
    order = radix_order(*packed);
  } else {
    struct Key {
      uint64_t start = 0;
      uint64_t end_reversed = 0;  // the later end first
      uint64_t kind_index = 0;    // then the kind, then where it was
      bool operator<(const Key& o) const {
        if (start != o.start) return start < o.start;
        if (end_reversed != o.end_reversed) return end_reversed < o.end_reversed;
        return kind_index < o.kind_index;
      }
    };
    std::vector<Key> keys(n);
    for (size_t i = 0; i < n; ++i) {
      const CountedRegion& r = regions[i];
      keys[i] = Key{start_of(r), ~end_of(r), uint64_t(r.kind) << 32 | i};
    }
    if (std::is_sorted(keys.begin(), keys.end())) return;
    std::sort(keys.begin(), keys.end());
    order.resize(n);
    for (size_t i = 0; i < n; ++i) order[i] = uint32_t(keys[i].kind_index);
  }
  std::vector<CountedRegion> out(n);
  for (size_t i = 0; i < n; ++i) out[i] = regions[order[i]];
  regions = std::move(out);
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
