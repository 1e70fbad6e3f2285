/* Self recursion: fib calls itself (gprof counts those calls apart, "30+N"),
   factorial too; main calls each a known number of times. */
#include <stdio.h>
#include <stdlib.h>

static long fib(int n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }

long factorial(int n) { return n <= 1 ? 1 : n * factorial(n - 1); }

int main(int argc, char** argv) {
  int depth = argc > 1 ? atoi(argv[1]) : 24;
  long sum = 0;
  for (int i = 0; i < 10; i++) sum += fib(depth - i % 3);
  for (int i = 0; i < 5; i++) sum += factorial(10 + i);
  printf("%ld\n", sum);
  return 0;
}
