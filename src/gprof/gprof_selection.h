#pragma once
// gprof's symbol specifications (binutils 2.40 sym_ids.c): the options that
// name functions (-pSYM, -PSYM, -qSYM, -QSYM, -e, -E, -f, -F, -n, -N, -k)
// fill eight tables of address ranges, which decide
//  - which functions the flat profile credits with samples and lists
//    (INCL_FLAT, EXCL_FLAT: the functions of neither subtract from the total);
//  - which the call graph prints (INCL_GRAPH, EXCL_GRAPH) and which pass
//    their time to callers (INCL_TIME, EXCL_TIME), both inherited by callees;
//  - which arcs count at all (INCL_ARCS, EXCL_ARCS: FROM/TO pairs).
// An empty INCL table lets everything through that its EXCL table does not
// hold. gprof's own functions (mcount...) are in EXCL_FLAT, EXCL_GRAPH and
// EXCL_TIME always.
//
// A specification is FILE:FUNCTION, FILE:LINE, or without a colon a FILE
// when it holds a dot, a LINE when it starts with a digit, else a FUNCTION
// (the symbol's name as in the symbol table, mangled). FILE is compared
// with the last component of the function's source file (the one gprof
// meets last of those with that name). SPEC/SPEC names the arcs from the
// functions of the first to those of the second. Consecutive functions
// that one specification names become one range.
#include <cstdint>
#include <string>
#include <vector>

#include "gprof/gprof_symbols.h"

namespace covkit::trace {

enum class GprofTable : int {
  kInclGraph,
  kExclGraph,
  kInclArcs,
  kExclArcs,
  kInclFlat,
  kExclFlat,
  kInclTime,
  kExclTime,
};
inline constexpr int kGprofTableCount = 8;

struct GprofSymbolSpec {
  std::string text;  // as given, e.g. "main", "util.c", "util.c:12", "a/b"
  GprofTable table;
};

// One range of a table; in the arc tables, with the ranges it has arcs to.
struct GprofSpecRange {
  uint64_t addr = 0, end_addr = 0;
  std::vector<GprofSpecRange> arcs_to;
};

class GprofSelection {
 public:
  // Only gprof's default exclusions.
  explicit GprofSelection(const GprofSymbolTable& symbols) : GprofSelection(symbols, {}) {}
  // `specs` in command-line order, then the default exclusions.
  GprofSelection(const GprofSymbolTable& symbols, const std::vector<GprofSymbolSpec>& specs);

  bool empty(GprofTable t) const { return tables_[int(t)].empty(); }
  // gprof's sym_lookup: whether a range of the table holds `addr`.
  bool holds(GprofTable t, uint64_t addr) const;
  // gprof's sym_id_arc_is_present: a range holding the caller's address has
  // an arc to a range covering the callee.
  bool holds_arc(GprofTable t, const GprofSymbol& from, const GprofSymbol& to) const;

  // The flat profile credits and lists the function at `addr`.
  bool flat(uint64_t addr) const {
    return holds(GprofTable::kInclFlat, addr) || (empty(GprofTable::kInclFlat) && !holds(GprofTable::kExclFlat, addr));
  }
  // The call from `from` to `to` is counted.
  bool arc_kept(const GprofSymbol& from, const GprofSymbol& to) const {
    return holds_arc(GprofTable::kInclArcs, from, to) ||
           (empty(GprofTable::kInclArcs) && !holds_arc(GprofTable::kExclArcs, from, to));
  }

 private:
  std::vector<GprofSymbol> lookup_[kGprofTableCount];   // ranges by address, for gprof_symbol_at
  std::vector<GprofSpecRange> tables_[kGprofTableCount];  // the same, with their arcs
};

}  // namespace covkit::trace
