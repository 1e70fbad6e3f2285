#pragma once
// The source file gprof names for a function (the "(file)" after a static
// function in its index), as BFD's nearest-line lookup names it.
//
// The row of the DWARF line table at the address gives the file, with one
// twist kept from BFD 2.40: in a DWARF 5 line table, the rows of a sequence
// before its first DW_LNS_set_file are named after file entry 0 (the unit's
// own file), not entry 1, which the file register starts at. GCC numbers the
// files in the order it first uses them, so entry 1 is often a header whose
// static function comes first in the unit (zstd's MEM_isLittleEndian from
// mem.h is labelled "(huf_compress.c)" by gprof). Checked with addr2line and
// gprof on tests/gprof/progs/headers.c with and without -ffunction-sections
// (each function its own sequence). DWARF 4 tables name file 1 as it is.
#include <cstdint>
#include <memory>
#include <string>

#include <elfutils/libdw.h>

namespace covkit::trace {

struct GprofSourceLine {
  std::string file;  // "" when unknown
  int line = 0;
};

class GprofSourceFiles {
 public:
  explicit GprofSourceFiles(Dwarf* dwarf);  // null: no debug information, every answer ""
  ~GprofSourceFiles();
  GprofSourceFiles(const GprofSourceFiles&) = delete;
  GprofSourceFiles& operator=(const GprofSourceFiles&) = delete;

  // The file and line of the line-table row holding `addr`; none when there
  // is no row or its line is 0.
  GprofSourceLine line_at(uint64_t addr);

 private:
  struct Units;  // per compilation unit: the rows BFD names after entry 0
  Dwarf* dwarf_;
  std::unique_ptr<Units> units_;
};

}  // namespace covkit::trace
