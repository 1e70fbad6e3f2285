/* The trace's clock against CLOCK_MONOTONIC: calls mark() N times, GAP_MS
 * apart, and prints for each call the CLOCK_MONOTONIC ns read just before
 * and just after it ("before after" per line). The trace's time of each
 * enter of mark() must lie between them, up to the clock's drift.
 * Between the marks it calls spin(), so the program runs (and, with the
 * TSC, the calibration lines come on the hooks' path) the whole time.
 * Usage: clock_marks N GAP_MS */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static uint64_t mono_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

__attribute__((noinline)) void mark(int i) { __asm__ __volatile__("" : : "r"(i) : "memory"); }

__attribute__((noinline)) void spin(void) { __asm__ __volatile__("" ::: "memory"); }

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 10;
  uint64_t gap = (uint64_t)(argc > 2 ? atoi(argv[2]) : 100) * 1000000u;
  uint64_t *before = calloc((size_t)n, sizeof *before), *after = calloc((size_t)n, sizeof *after);
  if (!before || !after) return 1;
  for (int i = 0; i < n; i++) {
    before[i] = mono_ns();
    mark(i);
    after[i] = mono_ns();
    /* A few calls a millisecond: a bounded trace, a running program. */
    for (uint64_t until = after[i] + gap; mono_ns() < until;) {
      spin();
      struct timespec pause = {0, 200000};
      nanosleep(&pause, 0);
    }
  }
  for (int i = 0; i < n; i++) printf("%llu %llu\n", (unsigned long long)before[i], (unsigned long long)after[i]);
  return 0;
}
