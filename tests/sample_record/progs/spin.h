/* Burns `seconds` of this thread's CPU time in a loop with branches. */
#include <time.h>

static volatile unsigned long spin_sink;

__attribute__((noinline)) static unsigned long spin_work(unsigned long n) {
  unsigned long s = 0;
  for (unsigned long i = 0; i < n; ++i) {
    if (i % 3 == 0)
      s += i * 7;
    else
      s ^= i;
  }
  return s;
}

static double thread_cpu_seconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void spin(double seconds) {
  double end = thread_cpu_seconds() + seconds;
  while (thread_cpu_seconds() < end) spin_sink += spin_work(20000);
}
