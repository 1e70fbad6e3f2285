#pragma once
// Read-only mappings of input files, guarded. A file that shrinks while it is
// mapped (a test still rewriting its .gcda, a hostile truncation) turns the
// next read of a lost page into SIGBUS; the guard makes that one line naming
// the file and exit status 1, never a crash with a core dump.
#include <cstddef>
#include <cstdint>
#include <string>

namespace covkit::util {

struct Mapping {
  const uint8_t* data = nullptr;
  size_t size = 0;
  int slot = -1;  // the guard's record of it; -1 when not mapped
};

// Maps `size` (> 0) bytes of `fd` read-only. Returns slot -1 when the file
// cannot be mapped or too many mappings are live; the caller then reads it.
Mapping map_file(int fd, size_t size, const std::string& path);
void unmap_file(const Mapping& m);

}  // namespace covkit::util
