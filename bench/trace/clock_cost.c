/* clock_cost.c: what one reading of each clock the tracing runtime may use
 * costs on this machine, for bench/trace_vs_uftrace.sh. The hooks read the
 * clock at every enter and every exit, so twice its cost is a floor under
 * the time traced per call that no encoding or buffering can go below (on
 * some virtual machines rdtsc is trapped and costs tens of nanoseconds).
 *
 * Prints "rdtsc <ns>" (x86 only) and "mono <ns>": the median of 5 rounds of
 * 2,000,000 back-to-back reads each. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#define HAVE_RDTSC 1
#endif

enum { kReads = 2000000, kRounds = 5 };

static double now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static int by_value(const void* a, const void* b) {
  const double x = *(const double*)a, y = *(const double*)b;
  return (x > y) - (x < y);
}

static volatile uint64_t sink;  /* keeps the reads from being optimized away */

static double rdtsc_round(void) {
  uint64_t sum = 0;
  const double t0 = now_ns();
#ifdef HAVE_RDTSC
  for (int i = 0; i < kReads; i++) sum += __rdtsc();
#endif
  const double t1 = now_ns();
  sink = sum;
  return (t1 - t0) / kReads;
}

static double mono_round(void) {
  uint64_t sum = 0;
  struct timespec ts;
  const double t0 = now_ns();
  for (int i = 0; i < kReads; i++) {
    clock_gettime(CLOCK_MONOTONIC, &ts);
    sum += (uint64_t)ts.tv_nsec;
  }
  const double t1 = now_ns();
  sink = sum;
  return (t1 - t0) / kReads;
}

static double median_of(double (*round)(void)) {
  double v[kRounds];
  for (int i = 0; i < kRounds; i++) v[i] = round();
  qsort(v, kRounds, sizeof v[0], by_value);
  return v[kRounds / 2];
}

int main(void) {
#ifdef HAVE_RDTSC
  printf("rdtsc %.1f\n", median_of(rdtsc_round));
#endif
  printf("mono %.1f\n", median_of(mono_round));
  return 0;
}
