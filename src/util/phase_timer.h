#pragma once
// Optional phase timings on stderr (COVKIT_TIMING=1), for finding where a
// run spends its time without a profiler: the wall time of each phase, the
// CPU time the process spent in it (all threads, user and system) and its
// page faults (on a VM, a fresh page can cost more than a microsecond).
#include <sys/resource.h>
#include <time.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>

namespace covkit::util {

class PhaseTimer {
 public:
  PhaseTimer()
      // Disabled, no clock is read (CLOCK_PROCESS_CPUTIME_ID is a system call,
      // and the first read of the wall clock faults in the vDSO's data page).
      : enabled_(std::getenv("COVKIT_TIMING") != nullptr), first_(enabled_ ? Clock::now() : Clock::time_point{}),
        last_(first_),
        first_cpu_(enabled_ ? cpu_ms() : 0), last_cpu_(first_cpu_), first_faults_(enabled_ ? faults() : 0),
        last_faults_(first_faults_) {}
  bool enabled() const { return enabled_; }
  // The time since the last mark (or the start), under `phase`.
  void mark(const char* phase) {
    if (!enabled_) return;
    auto now = Clock::now();
    double cpu = cpu_ms();
    long now_faults = faults();
    print(phase, std::chrono::duration<double, std::milli>(now - last_).count(), cpu - last_cpu_,
          now_faults - last_faults_);
    last_ = now;
    last_cpu_ = cpu;
    last_faults_ = now_faults;
  }
  // The time since the start (a closing line: the phases' sum).
  void total(const char* what) const {
    if (!enabled_) return;
    print(what, std::chrono::duration<double, std::milli>(Clock::now() - first_).count(), cpu_ms() - first_cpu_,
          faults() - first_faults_);
  }
  // A part measured by its caller (one thread's share of a phase run on several).
  void note(const char* what, double wall_ms, double cpu_ms) const {
    if (enabled_) print(what, wall_ms, cpu_ms);
  }
  // This thread's CPU time, for note().
  static double thread_cpu_ms() { return clock_ms(CLOCK_THREAD_CPUTIME_ID); }

 private:
  using Clock = std::chrono::steady_clock;
  static void print(const char* what, double wall_ms, double cpu_ms, long page_faults = -1) {
    if (page_faults < 0)
      std::fprintf(stderr, "covkit timing: %-24s %8.2f ms  cpu %7.2f ms\n", what, wall_ms, cpu_ms);
    else
      std::fprintf(stderr, "covkit timing: %-24s %8.2f ms  cpu %7.2f ms  page faults %ld\n", what, wall_ms, cpu_ms,
                   page_faults);
  }
  // The process's page faults so far (minor: a fresh page or one in the page cache).
  static long faults() {
    rusage u{};
    ::getrusage(RUSAGE_SELF, &u);
    return u.ru_minflt + u.ru_majflt;
  }
  static double clock_ms(clockid_t clock) {
    timespec t{};
    ::clock_gettime(clock, &t);
    return double(t.tv_sec) * 1e3 + double(t.tv_nsec) / 1e6;
  }
  static double cpu_ms() { return clock_ms(CLOCK_PROCESS_CPUTIME_ID); }
  bool enabled_;
  Clock::time_point first_, last_;
  double first_cpu_, last_cpu_;
  long first_faults_, last_faults_;
};

}  // namespace covkit::util
