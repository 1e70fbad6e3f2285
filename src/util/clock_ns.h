#pragma once
// A POSIX clock read as nanoseconds: CLOCK_MONOTONIC, the clock trace
// calibrations and perf_event_open's records use, and CLOCK_REALTIME, which
// sample recordings date their images with.
#include <time.h>

#include <cstdint>

namespace covkit::util {

inline uint64_t clock_ns(clockid_t clock) {
  timespec ts{};
  ::clock_gettime(clock, &ts);
  return uint64_t(ts.tv_sec) * 1'000'000'000u + uint64_t(ts.tv_nsec);
}

}  // namespace covkit::util
