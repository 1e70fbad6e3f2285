#pragma once
// Optional phase timings on stderr (COVKIT_TIMING=1), for finding where a
// run spends its time without a profiler: the wall time of each phase and
// the CPU time the process spent in it (all threads, user and system).
#include <time.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>

namespace covkit::util {

class PhaseTimer {
 public:
  PhaseTimer() : enabled_(std::getenv("COVKIT_TIMING") != nullptr), last_(Clock::now()), last_cpu_(cpu_ms()) {}
  void mark(const char* phase) {
    if (!enabled_) return;
    auto now = Clock::now();
    double cpu = cpu_ms();
    std::fprintf(stderr, "covkit timing: %-24s %8.2f ms  cpu %7.2f ms\n", phase,
                 std::chrono::duration<double, std::milli>(now - last_).count(), cpu - last_cpu_);
    last_ = now;
    last_cpu_ = cpu;
  }

 private:
  using Clock = std::chrono::steady_clock;
  static double cpu_ms() {
    timespec t{};
    ::clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return double(t.tv_sec) * 1e3 + double(t.tv_nsec) / 1e6;
  }
  bool enabled_;
  Clock::time_point last_;
  double last_cpu_;
};

}  // namespace covkit::util
