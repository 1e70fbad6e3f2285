// BFD's file of a line-table row (gprof_source_files.h): libdw's row, or the
// line program's own sequences where libdw's sorted rows cannot tell.
#include "gprof/gprof_source_files.h"

#include <algorithm>
#include <optional>
#include <vector>

#include "gprof/gprof_line_sequences.h"

#include <unordered_map>

namespace covkit::trace {

namespace {

// Whether one of the unit's sequences ends at `addr` (an end_sequence row
// there): a sequence may start there too, and libdw's sorted rows then mix
// the two (gprof_line_sequences.h).
bool sequence_ends_at(Dwarf_Die* cu, uint64_t addr) {
  Dwarf_Lines* lines = nullptr;
  size_t count = 0;
  if (dwarf_getsrclines(cu, &lines, &count) != 0 || count == 0) return false;
  size_t lo = 0, hi = count;  // the first row at or after addr
  while (lo < hi) {
    const size_t mid = lo + (hi - lo) / 2;
    Dwarf_Addr a = 0;
    dwarf_lineaddr(dwarf_onesrcline(lines, mid), &a);
    if (a < addr) lo = mid + 1;
    else hi = mid;
  }
  for (size_t i = lo; i < count; ++i) {
    Dwarf_Line* row = dwarf_onesrcline(lines, i);
    Dwarf_Addr a = 0;
    bool end = false;
    if (dwarf_lineaddr(row, &a) != 0 || a != addr) break;
    if (dwarf_lineendsequence(row, &end) == 0 && end) return true;
  }
  return false;
}

struct UnitOfLines {
  unsigned version = 0;  // the unit's: GCC writes its line table's alike
  bool program_read = false;
  std::optional<GprofLineProgram> program;  // read when an address needs it
  // The program's sequences by start address (ties in program order): a
  // lookup is a binary search, not a walk over every sequence and row.
  std::vector<size_t> by_start;
};

}  // namespace

struct GprofSourceFiles::Units {
  std::unordered_map<Dwarf_Off, UnitOfLines> by_offset;
};

namespace {

// The sequence BFD looks `addr` up in: the first in program order whose
// [start, end) holds it. Sequences of a linked program do not overlap but
// for the empty ones and those of discarded COMDAT copies (at 0).
const GprofLineSequence* sequence_holding(const UnitOfLines& unit, uint64_t addr) {
  const std::vector<GprofLineSequence>& seqs = unit.program->sequences;
  auto after = std::upper_bound(unit.by_start.begin(), unit.by_start.end(), addr,
                                [&](uint64_t a, size_t i) { return a < seqs[i].start; });
  const GprofLineSequence* found = nullptr;
  size_t found_index = 0;
  for (auto it = after; it != unit.by_start.begin();) {
    --it;
    const GprofLineSequence& seq = seqs[*it];
    if (addr < seq.end) {
      if (!found || *it < found_index) {
        found = &seq;
        found_index = *it;
      }
    } else if (!found && seq.end > seq.start) {
      break;  // a real sequence ends before addr: none before it reaches addr
    }
    if (found && seq.start < found->start) break;  // earlier starts: overlapping copies only
  }
  return found;
}

// The row BFD finds for `addr` in `program`: the last row at or before it
// of the sequence whose [start, end) holds it, named as BFD names files.
std::optional<GprofSourceLine> bfd_row(const UnitOfLines& unit, Dwarf_Die* cu, uint64_t addr) {
  const GprofLineSequence* seq = sequence_holding(unit, addr);
  if (!seq) return std::nullopt;
  auto after = std::upper_bound(seq->rows.begin(), seq->rows.end(), addr,
                                [](uint64_t a, const GprofLineRow& row) { return a < row.addr; });
  if (after == seq->rows.begin() || (after - 1)->line == 0) return GprofSourceLine{};
  const GprofLineRow& found = *(after - 1);
  Dwarf_Files* files = nullptr;
  size_t nfiles = 0;
  if (dwarf_getsrcfiles(cu, &files, &nfiles) != 0) return std::nullopt;
  // DWARF 5: rows before a sequence's first DW_LNS_set_file are named
  // after entry 0 (see the header).
  const size_t index = unit.version >= 5 && found.before_set_file && found.file == 1 ? 0 : found.file;
  const char* name = index < nfiles ? dwarf_filesrc(files, index, nullptr, nullptr) : nullptr;
  if (!name) return GprofSourceLine{};
  return GprofSourceLine{name, found.line};
}

void read_program(Dwarf* dwarf, Dwarf_Die* cu, UnitOfLines& unit) {
  unit.program_read = true;
  unit.program = read_line_program(dwarf, cu);
  if (!unit.program) return;
  const std::vector<GprofLineSequence>& seqs = unit.program->sequences;
  unit.by_start.resize(seqs.size());
  for (size_t i = 0; i < seqs.size(); ++i) unit.by_start[i] = i;
  std::stable_sort(unit.by_start.begin(), unit.by_start.end(),
                   [&](size_t a, size_t b) { return seqs[a].start < seqs[b].start; });
}

}  // namespace

GprofSourceFiles::GprofSourceFiles(Dwarf* dwarf) : dwarf_(dwarf), units_(std::make_unique<Units>()) {}
GprofSourceFiles::~GprofSourceFiles() = default;

GprofSourceLine GprofSourceFiles::line_at(uint64_t addr) {
  if (!dwarf_) return {};
  Dwarf_Die cu;
  if (!dwarf_addrdie(dwarf_, addr, &cu)) return {};
  Dwarf_Line* line = dwarf_getsrc_die(&cu, addr);
  if (!line) return {};
  int lineno = 0;
  if (dwarf_lineno(line, &lineno) != 0 || lineno == 0) return {};
  auto [it, added] = units_->by_offset.try_emplace(dwarf_dieoffset(&cu));
  UnitOfLines& unit = it->second;
  if (added) {
    Dwarf_Half version = 0;
    uint8_t unit_type = 0;
    if (dwarf_cu_info(cu.cu, &version, &unit_type, nullptr, nullptr, nullptr, nullptr, nullptr) == 0)
      unit.version = version;
  }
  // DWARF 5 names a sequence's leading rows after entry 0, which only the
  // program's own sequences show (libdw's rows, sorted by address, may put a
  // sequence's zero-length last row after its end and so hide where the next
  // one starts). Elsewhere libdw's row is BFD's, but where a sequence ends at
  // the row's address: it may be the ending sequence's last one, and BFD
  // looks in the sequence that starts there.
  Dwarf_Addr row_addr = 0;
  if (unit.version >= 5 || (dwarf_lineaddr(line, &row_addr) == 0 && sequence_ends_at(&cu, row_addr))) {
    if (!unit.program_read) read_program(dwarf_, &cu, unit);
    if (unit.program)
      if (auto bfd = bfd_row(unit, &cu, addr)) return *bfd;
  }
  const char* file = dwarf_linesrc(line, nullptr, nullptr);
  if (!file) return {};
  return {file, lineno};
}

}  // namespace covkit::trace
