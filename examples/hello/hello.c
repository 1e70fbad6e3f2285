/* A small program to show covkit: a loop, a branch taken one way only,
   and a function that never runs. */
#include <stdio.h>
#include <stdlib.h>

static int is_prime(int n) {
  if (n < 2) return 0;
  for (int d = 2; d * d <= n; d++)
    if (n % d == 0) return 0;
  return 1;
}

static void never_called(void) { puts("unreachable"); }

int main(int argc, char **argv) {
  int limit = argc > 1 ? atoi(argv[1]) : 30;
  int count = 0;
  for (int n = 0; n < limit; n++) count += is_prime(n);
  printf("%d primes below %d\n", count, limit);
  if (count < 0) never_called();
  return 0;
}
