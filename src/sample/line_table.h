#pragma once
// A module's DWARF line table (libdw, dwarf_getsrclines per compilation
// unit) as address ranges -> (file, line), plus the declaration line of
// each subprogram by its entry address. Inlined code needs nothing more
// for lines: the line table already names the inlined function's file and
// line at each of its addresses. For functions it does: a function inlined
// into its callers runs without its out-of-line copy's entry ever running,
// so the entries of its inlined instances (DW_TAG_inlined_subroutine) are
// kept with those of its copies.
#include <algorithm>
#include <cstdint>
#include <iterator>
#include <map>
#include <string>
#include <vector>

#include "util/expected.h"

namespace covkit::sample {

struct LineRange {
  uint64_t lo = 0, hi = 0;  // [lo, hi); a row of no length is [lo, lo + 1)
  uint32_t file = 0;        // index in LineTable::files
  uint32_t line = 0;
  bool is_stmt = false;
  // false for a statement's row of no length at an address where another
  // line's statement begins (gcc's location views) when the line has code
  // of its own nearby: running that address alone does not say the
  // statement ran (statement_markers.h).
  bool covers = true;
  bool point = false;  // a row of no length (hi is lo + 1 only so that it overlaps its address)
  // A row that is no statement only because its line is the row before's:
  // gcc gives the code of a statement in another block of its own a row
  // with a new discriminator and is_stmt 0 when it follows that statement's
  // row (at -O0 too: the `break;` after an inner switch, where the inner
  // cases' breaks join). Its code is the statement's own, not code moved
  // away from it; set along a chain of such rows after an is_stmt row.
  bool continues = false;
};

struct DeclLine {
  uint32_t file = 0, line = 0;
};

// One function of the source that has both out-of-line copies (a symbol
// each: the function, its .constprop/.isra clones) and inlined instances,
// found by their common DW_AT_abstract_origin.
struct InlinedFunction {
  std::vector<uint64_t> copies;     // entry addresses of the out-of-line copies
  std::vector<uint64_t> instances;  // entry addresses of the inlined instances
};

struct LineTable {
  bool has_debug_info = false;      // false: no .debug_info/.debug_line (or none libdw can read)
  std::vector<std::string> files;   // absolute (joined with the unit's comp_dir), normalized
  std::vector<LineRange> ranges;    // sorted by lo; may overlap across units
  std::map<uint64_t, DeclLine> subprograms;  // entry address -> declaration
  std::vector<InlinedFunction> inlined;      // in no particular order

  // Calls f(range) for every range that overlaps [lo, hi).
  template <typename F>
  void for_each_overlapping(uint64_t lo, uint64_t hi, F&& f) const;
};

// A file without debug information is not an error (has_debug_info ==
// false); a file that cannot be opened is.
Expected<LineTable> load_line_table(const std::string& path);

template <typename F>
void LineTable::for_each_overlapping(uint64_t lo, uint64_t hi, F&& f) const {
  // Ranges are short and sorted by lo; start a little before the first
  // one starting at or after lo to catch the range that straddles it.
  auto it = std::lower_bound(ranges.begin(), ranges.end(), lo,
                             [](const LineRange& r, uint64_t a) { return r.lo < a; });
  while (it != ranges.begin() && std::prev(it)->hi > lo) --it;
  for (; it != ranges.end() && it->lo < hi; ++it)
    if (it->hi > lo) f(*it);
}

}  // namespace covkit::sample
