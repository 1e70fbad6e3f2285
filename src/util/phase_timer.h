#pragma once
// Optional phase timings on stderr (COVKIT_TIMING=1), for finding where a
// run spends its time without a profiler.
#include <chrono>
#include <cstdio>
#include <cstdlib>

namespace covkit::util {

class PhaseTimer {
 public:
  PhaseTimer() : enabled_(std::getenv("COVKIT_TIMING") != nullptr), last_(Clock::now()) {}
  void mark(const char* phase) {
    if (!enabled_) return;
    auto now = Clock::now();
    std::fprintf(stderr, "covkit timing: %-24s %8.2f ms\n", phase,
                 std::chrono::duration<double, std::milli>(now - last_).count());
    last_ = now;
  }

 private:
  using Clock = std::chrono::steady_clock;
  bool enabled_;
  Clock::time_point last_;
};

}  // namespace covkit::util
