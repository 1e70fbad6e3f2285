// BFD's file of a line-table row (gprof_source_files.h) from libdw's rows.
#include "gprof/gprof_source_files.h"

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

}  // namespace

struct GprofSourceFiles::Units {
  std::unordered_map<Dwarf_Off, UnitFileZeroRows> by_offset;
};

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
  if (added) it->second = file_zero_rows(&cu);
  if (it->second.rows.count(line)) return {it->second.file_zero, lineno};
  const char* file = dwarf_linesrc(line, nullptr, nullptr);
  if (!file) return {};
  return {file, lineno};
}

}  // namespace covkit::trace
