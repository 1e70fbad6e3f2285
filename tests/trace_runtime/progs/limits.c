/* Max depth and min time. Usage: limits DEPTH
 * rec(DEPTH) nests DEPTH frames; quick() is a leaf of a few ns called 1000
 * times from main and from busy(); slow() spins 3 ms; busy() spins 3 ms too
 * but only calls quick(). */
#include <stdlib.h>
#include <time.h>

static void spin_ms(int ms) __attribute__((no_instrument_function));
static void spin_ms(int ms) {
  struct timespec a, b;
  clock_gettime(CLOCK_MONOTONIC, &a);
  do clock_gettime(CLOCK_MONOTONIC, &b);
  while ((b.tv_sec - a.tv_sec) * 1000000000L + (b.tv_nsec - a.tv_nsec) < ms * 1000000L);
}

void rec(int n) {
  if (n > 1) rec(n - 1);
}
/* A few dozen ns of work, so that no call measures 0 ticks: with a 1 ns
 * minimum a 0-tick call would rightly be dropped. */
static volatile int sink;
void quick(void) {
  for (int i = 0; i < 50; i++) sink += i;
}
void slow(void) { spin_ms(3); }
void busy(void) {
  quick();
  spin_ms(3);
}

int main(int argc, char **argv) {
  rec(argc > 1 ? atoi(argv[1]) : 20);
  for (int i = 0; i < 1000; i++) quick();
  slow();
  busy();
  return 0;
}
