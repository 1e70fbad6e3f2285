// BFD's file of a line-table row (gprof_source_files.h) from libdw's rows.
#include "gprof/gprof_source_files.h"

#include <optional>

#include "gprof/gprof_line_sequences.h"

#include <unordered_map>
#include <unordered_set>

namespace covkit::trace {

namespace {

// One compilation unit's rows that BFD names after file entry 0, and that
// name; empty for a DWARF 4 unit.
struct UnitFileZeroRows {
  std::unordered_set<const Dwarf_Line*> rows;
  std::string file_zero;
};

UnitFileZeroRows file_zero_rows(Dwarf_Die* cu) {
  UnitFileZeroRows unit;
  Dwarf_Half version = 0;
  uint8_t unit_type = 0;
  // The unit's version stands for its line table's: GCC writes both alike.
  if (dwarf_cu_info(cu->cu, &version, &unit_type, nullptr, nullptr, nullptr, nullptr, nullptr) != 0 || version < 5)
    return unit;
  Dwarf_Lines* lines = nullptr;
  size_t count = 0;
  Dwarf_Files* files = nullptr;
  size_t nfiles = 0;
  if (dwarf_getsrclines(cu, &lines, &count) != 0 || dwarf_getsrcfiles(cu, &files, &nfiles) != 0 || nfiles == 0)
    return unit;
  const char* zero = dwarf_filesrc(files, 0, nullptr, nullptr);
  if (!zero) return unit;
  unit.file_zero = zero;
  // libdw keeps a sequence's rows together, in order, ending with its
  // end_sequence row. The file register starts at 1 and GNU as emits no
  // DW_LNS_set_file for file 1 at a sequence's start, so the leading rows
  // of file 1 are the rows before the first DW_LNS_set_file.
  bool leading = true;
  for (size_t i = 0; i < count; ++i) {
    Dwarf_Line* row = dwarf_onesrcline(lines, i);
    if (!row) break;
    Dwarf_Files* row_files = nullptr;
    size_t index = 0;
    if (leading && dwarf_line_file(row, &row_files, &index) == 0 && index == 1)
      unit.rows.insert(row);
    else
      leading = false;
    bool end = false;
    if (dwarf_lineendsequence(row, &end) == 0 && end) leading = true;
  }
  return unit;
}

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
  UnitFileZeroRows file_zero;
  bool program_read = false;
  std::optional<GprofLineProgram> program;  // read when an address needs it
};

}  // namespace

struct GprofSourceFiles::Units {
  std::unordered_map<Dwarf_Off, UnitOfLines> by_offset;
};

namespace {

// The row BFD finds for `addr` in `program`: the last row at or before it
// of the sequence whose [start, end) holds it, named as BFD names files.
std::optional<GprofSourceLine> bfd_row(const GprofLineProgram& program, Dwarf_Die* cu, uint64_t addr) {
  for (const GprofLineSequence& seq : program.sequences) {
    if (addr < seq.start || addr >= seq.end) continue;
    const GprofLineRow* found = nullptr;
    for (const GprofLineRow& row : seq.rows) {
      if (row.addr > addr) break;
      found = &row;
    }
    if (!found || found->line == 0) return GprofSourceLine{};
    Dwarf_Files* files = nullptr;
    size_t nfiles = 0;
    if (dwarf_getsrcfiles(cu, &files, &nfiles) != 0) return std::nullopt;
    // DWARF 5: rows before a sequence's first DW_LNS_set_file are named
    // after entry 0 (see the header).
    const size_t index = program.version >= 5 && found->before_set_file && found->file == 1 ? 0 : found->file;
    const char* name = index < nfiles ? dwarf_filesrc(files, index, nullptr, nullptr) : nullptr;
    if (!name) return GprofSourceLine{};
    return GprofSourceLine{name, found->line};
  }
  return std::nullopt;
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
  if (added) unit.file_zero = file_zero_rows(&cu);
  // Where a sequence ends at the row's address, libdw's row may be the
  // ending sequence's last one: BFD looks in the sequence that starts there.
  Dwarf_Addr row_addr = 0;
  if (dwarf_lineaddr(line, &row_addr) == 0 && sequence_ends_at(&cu, row_addr)) {
    if (!unit.program_read) {
      unit.program = read_line_program(dwarf_, &cu);
      unit.program_read = true;
    }
    if (unit.program)
      if (auto bfd = bfd_row(*unit.program, &cu, addr)) return *bfd;
  }
  if (unit.file_zero.rows.count(line)) return {unit.file_zero.file_zero, lineno};
  const char* file = dwarf_linesrc(line, nullptr, nullptr);
  if (!file) return {};
  return {file, lineno};
}

}  // namespace covkit::trace
