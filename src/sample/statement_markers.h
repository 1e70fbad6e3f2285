#pragma once
// Which of a unit's statement markers (line-table rows of no length whose
// line no row at their address continues) run their statement when their
// address runs. gcc leaves such a row where a statement without code of
// its own sits (an assert() under NDEBUG, a declaration folded into the
// next statement, an inlined function's opening line): running the address
// runs the statement. It also leaves one where a statement that has code
// elsewhere in the same function ends, at the join after it (the `if`
// whose block was skipped): there running the address says nothing of the
// statement. So a marker covers its line unless the line has code of its
// own inside the innermost function or inlined instance holding the marker
// (a function's entry always runs its opening line); such a marker is left
// to coverage_builder, which counts it when that code lies ahead of it in
// the function's CFG (a statement gcc sank past a branch stood there).
#include <elfutils/libdw.h>

#include <cstdint>
#include <map>
#include <span>

#include "sample/line_table.h"

namespace covkit::sample {

// `rows`: the unit's rows; `markers`: indices of its markers in `rows`;
// `entries`: the unit's function entry addresses. Sets `covers` of each marker.
void resolve_statement_markers(Dwarf_Die* cu, std::span<LineRange> rows, std::span<const size_t> markers,
                               const std::map<uint64_t, DeclLine>& entries);

}  // namespace covkit::sample
