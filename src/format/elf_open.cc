#include "format/elf_open.h"

#include <sys/stat.h>

#include "util/file_io.h"

namespace covkit::format {

Elf* begin_elf(int fd) {
  struct stat st {};
  const bool map = ::fstat(fd, &st) == 0 && util::only_ours(st);
  return elf_begin(fd, map ? ELF_C_READ_MMAP : ELF_C_READ, nullptr);
}

}  // namespace covkit::format
