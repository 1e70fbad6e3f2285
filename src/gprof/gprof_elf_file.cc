#include "gprof/gprof_elf_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>

namespace covkit::trace {

Expected<GprofElfFile> GprofElfFile::open(const std::string& path) {
  elf_version(EV_CURRENT);
  GprofElfFile f;
  // Regular files only, opened without blocking: a.out, the default, may
  // be a FIFO in a directory another user can write.
  f.fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
  if (f.fd_ < 0) {
    Error e(std::strerror(errno));
    e.errno_value = errno;
    return e;
  }
  struct stat st {};
  if (::fstat(f.fd_, &st) != 0 || !S_ISREG(st.st_mode)) return Error("not a regular file");
  f.elf_ = elf_begin(f.fd_, ELF_C_READ_MMAP, nullptr);
  if (!f.elf_ || elf_kind(f.elf_) != ELF_K_ELF) return Error("not an ELF file");
  f.dwarf_ = dwarf_begin_elf(f.elf_, DWARF_C_READ, nullptr);  // null without debug info
  return f;
}

GprofElfFile::GprofElfFile(GprofElfFile&& o) noexcept
    : fd_(std::exchange(o.fd_, -1)), elf_(std::exchange(o.elf_, nullptr)), dwarf_(std::exchange(o.dwarf_, nullptr)) {}

GprofElfFile::~GprofElfFile() {
  if (dwarf_) dwarf_end(dwarf_);
  if (elf_) elf_end(elf_);
  if (fd_ >= 0) ::close(fd_);
}

}  // namespace covkit::trace
