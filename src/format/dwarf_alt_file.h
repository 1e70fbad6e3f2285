#pragma once
// The file a binary's .gnu_debugaltlink names (dwz's shared debug
// information: strings and DIEs of several binaries, referred to by
// DW_FORM_GNU_strp_alt, DW_FORM_GNU_ref_alt and the DWARF 5 *_sup forms).
// libdw opens it itself at the first such form: open(2) of the name the
// binary holds, with covkit's rights (root's), blocking and unchecked. A
// binary of another user's naming a FIFO there stopped covkit for good, a
// device was read, a file only root may read was given a hostile binary's
// strings, and the file's compressed sections expanded past the bound of
// format/elf_debug_expansion.h. covkit opens it before libdw can, as it
// reads any file data names (util::read_named_file: a regular file only,
// with the rights of the data's owners), and gives libdw that or none.
#include <elfutils/libdw.h>

#include <string>

#include "util/file_io.h"

namespace covkit::format {

class DwarfAltFile {
 public:
  DwarfAltFile() = default;
  DwarfAltFile(DwarfAltFile&& o) noexcept;
  DwarfAltFile& operator=(DwarfAltFile&& o) noexcept;
  DwarfAltFile(const DwarfAltFile&) = delete;
  DwarfAltFile& operator=(const DwarfAltFile&) = delete;
  ~DwarfAltFile();

  // Settles `dbg`'s alternate file, which this object then holds: where
  // libdw would look (/usr/lib/debug/.build-id/ by the build ID the link
  // holds, then the name itself: absolute, or under `dir`, the directory of
  // the file when libdw knows it; empty: absolute names only), the first
  // that reads as an ELF file with DWARF; with none, no alternate file (as
  // libdw finding none). Call before dwarf_end(dbg) outlives this.
  void attach(Dwarf* dbg, const std::string& dir);
  bool found() const { return alt_ != nullptr; }

 private:
  void release();

  util::FileData data_;
  Elf* elf_ = nullptr;
  Dwarf* alt_ = nullptr;
};

}  // namespace covkit::format
