/* Runs long enough (~0.3 s at -O0) for the profiling timer to sample:
   heavy() does most of the work, light() a fifth of it, both called from
   two callers; a static helper shows its file in gprof's index. */
#include <stdio.h>
#include <stdlib.h>

static volatile double sink;

static double spin(long n) {
  double x = 0;
  for (long i = 0; i < n; i++) x += (double)(i % 7) * 0.5;
  return x;
}

double heavy(long n) { return spin(n * 5); }
double light(long n) { return spin(n); }

void phase_one(long n) { sink += heavy(n) + light(n); }
void phase_two(long n) { sink += heavy(n / 2) + light(n / 2); }

int main(int argc, char** argv) {
  long n = argc > 1 ? atol(argv[1]) : 2000000;
  for (int i = 0; i < 8; i++) phase_one(n);
  for (int i = 0; i < 4; i++) phase_two(n);
  printf("%g\n", sink);
  return 0;
}
