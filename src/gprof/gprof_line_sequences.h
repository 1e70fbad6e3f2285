#pragma once
// A compilation unit's line table as its line program lays it out: one
// sequence per run of code (a function with -ffunction-sections, each
// COMDAT function, the unit's .text), each with its rows in program order.
//
// libdw gives the rows sorted by address, which loses which sequence a row
// belongs to: where one sequence ends at the address another starts, the
// ending one's zero-length last rows (GCC writes one after a tail call)
// sort among the starting one's rows, and after them when the starting
// sequence comes first in the program (a COMDAT function emitted before
// the unit's .text, placed after it by the linker). BFD, and so gprof,
// looks an address up in the sequence whose [start, end) holds it, which
// is the one that starts there (gprof_source_files.h uses this at such
// addresses only).
#include <elfutils/libdw.h>

#include <cstdint>
#include <optional>
#include <vector>

namespace covkit::trace {

struct GprofLineRow {
  uint64_t addr = 0;
  uint32_t file = 0;  // the file register: an index into the unit's file table
  int line = 0;
  bool before_set_file = false;  // no DW_LNS_set_file yet in its sequence
};

struct GprofLineSequence {
  uint64_t start = 0, end = 0;  // [start, end)
  std::vector<GprofLineRow> rows;
};

struct GprofLineProgram {
  unsigned version = 0;
  std::vector<GprofLineSequence> sequences;  // in program order
};

// The line program of `cu` (its DW_AT_stmt_list), read from .debug_line;
// nullopt when it cannot be read (no such attribute, a compressed section
// libelf cannot expand, a program that runs past its end).
std::optional<GprofLineProgram> read_line_program(Dwarf* dwarf, Dwarf_Die* cu);

}  // namespace covkit::trace
