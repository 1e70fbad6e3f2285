// What the bench loops (decode_floor.cc, profile_floor.cc) share: a thread
// stream file mapped whole and read in before timing (MAP_POPULATE), so
// what they time is decoding, not the disk; their command line; the best of
// several timed runs.
#pragma once
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

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

// `PROG FILE.ckt [REPEATS]`: false (usage or why on stderr) when it is not.
inline bool bench_args(int argc, char** argv, MappedStream& stream, int& repeats) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s FILE.ckt [REPEATS]\n", argv[0]);
    return false;
  }
  repeats = argc > 2 ? std::atoi(argv[2]) : 5;
  return map_stream(argv[1], stream);
}

// The fastest of `repeats` runs of `run` in ns (the others had the machine's
// noise in them); `run` keeps its own result.
template <class Run>
double best_ns(int repeats, Run&& run) {
  double best = 0;
  for (int i = 0; i < repeats; ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    run();
    const double ns = std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - t0).count();
    if (i == 0 || ns < best) best = ns;
  }
  return best;
}
