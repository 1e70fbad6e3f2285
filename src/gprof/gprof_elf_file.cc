#include "gprof/gprof_elf_file.h"

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <utility>

#include <fmt/format.h>

#include "format/elf_debug_expansion.h"
#include "format/elf_open.h"
#include "util/file_io.h"

namespace covkit::trace {

Expected<GprofElfFile> GprofElfFile::open(const std::string& path) {
  elf_version(EV_CURRENT);
  GprofElfFile f;
  // Regular files only, never opened otherwise: a.out, the default, may be
  // a FIFO or a device in a directory another user can write.
  auto opened = util::open_regular_file(path);
  if (!opened) return opened.error();
  f.fd_ = opened->release();
  f.elf_ = format::begin_elf(f.fd_);
  if (!f.elf_ || elf_kind(f.elf_) != ELF_K_ELF) return Error("not an ELF file");
  // libdw would expand them whole (format/elf_debug_expansion.h).
  if (const uint64_t expanded = format::debug_expansion_past_bound(f.elf_))
    return Error(fmt::format("its compressed debug sections would expand to {} bytes, over {} times their size",
                             expanded, format::kMaxDebugExpansion));
  f.dwarf_ = dwarf_begin_elf(f.elf_, DWARF_C_READ, nullptr);  // null without debug info
  f.alt_file_.attach(f.dwarf_, std::filesystem::path(path).parent_path().string());
  return f;
}

GprofElfFile::GprofElfFile(GprofElfFile&& o) noexcept
    : fd_(std::exchange(o.fd_, -1)),
      elf_(std::exchange(o.elf_, nullptr)),
      dwarf_(std::exchange(o.dwarf_, nullptr)),
      alt_file_(std::move(o.alt_file_)) {}

GprofElfFile::~GprofElfFile() {
  if (dwarf_) dwarf_end(dwarf_);
  if (elf_) elf_end(elf_);
  if (fd_ >= 0) ::close(fd_);
}

}  // namespace covkit::trace
