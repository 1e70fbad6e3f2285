#pragma once
// A program's ELF file with its DWARF (null without debug info), as gprof's
// readers (symbols, line symbols) open it: one RAII handle for both.
#include <elfutils/libdw.h>
#include <libelf.h>

#include <string>

#include "format/dwarf_alt_file.h"
#include "util/expected.h"

namespace covkit::trace {

class GprofElfFile {
 public:
  // The error: the system's reason, or "not an ELF file" (the caller names
  // the file).
  static Expected<GprofElfFile> open(const std::string& path);
  GprofElfFile(GprofElfFile&& o) noexcept;
  GprofElfFile(const GprofElfFile&) = delete;
  GprofElfFile& operator=(const GprofElfFile&) = delete;
  GprofElfFile& operator=(GprofElfFile&&) = delete;
  ~GprofElfFile();
  Elf* elf() const { return elf_; }
  Dwarf* dwarf() const { return dwarf_; }

 private:
  GprofElfFile() = default;
  int fd_ = -1;
  Elf* elf_ = nullptr;
  Dwarf* dwarf_ = nullptr;
  format::DwarfAltFile alt_file_;  // destroyed after dwarf_end(dwarf_)
};

}  // namespace covkit::trace
