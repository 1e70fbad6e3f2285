// A thread stream file mapped whole for the bench loops (decode_floor.cc,
// profile_floor.cc), read in before timing (MAP_POPULATE): what they time
// is decoding, not the disk.
#pragma once
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>

struct MappedStream {
  const uint8_t* data = nullptr;
  size_t size = 0;
};

// false (and a line on stderr) when `path` cannot be mapped or holds no header.
inline bool map_stream(const char* path, MappedStream& out) {
  const int fd = ::open(path, O_RDONLY);
  struct stat st {};
  if (fd < 0 || ::fstat(fd, &st) != 0 || st.st_size < 64) {
    std::fprintf(stderr, "%s: cannot read\n", path);
    return false;
  }
  void* map = ::mmap(nullptr, size_t(st.st_size), PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0);
  ::close(fd);
  if (map == MAP_FAILED) {
    std::fprintf(stderr, "%s: cannot map\n", path);
    return false;
  }
  out.data = static_cast<const uint8_t*>(map);
  out.size = size_t(st.st_size);
  return true;
}
