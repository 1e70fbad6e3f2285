/* A program whose coverage is known by reading it: work() and its branches
   run, never() does not, the switch takes three of its five cases. */
#include <stdio.h>
#include <stdlib.h>

__attribute__((noinline)) static long work(int n) {
  long s = 0;
  for (int i = 0; i < n; i++) {
    if (i % 3 == 0)
      s += i;
    else
      s -= 1;
  }
  return s;
}

__attribute__((noinline)) static long never(int x) {
  long y = x * 7 + 1;
  return y * y;
}

__attribute__((noinline)) static long pick(int k) {
  switch (k % 5) {
    case 0: return 10;
    case 1: return work(3);
    case 2: return 30;
    case 7: return 70; /* unreachable: k % 5 < 5 */
    default: return 1;
  }
}

int main(int argc, char **argv) {
  long rounds = argc > 1 ? atol(argv[1]) : 1000;
  long t = 0;
  for (long k = 0; k < rounds; k++) t += work(1000 + (int)(k % 7)) + pick((int)k);
  if (argc > 5) t += never(argc);
  printf("%ld\n", t);
  return 0;
}
