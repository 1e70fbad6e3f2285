/* Recursion of known depth: rec(N) nests N frames (max depth N + 1 with
 * main); fib(K) makes 2*fib(K+1) - 1 calls, K + 1 deep with main.
 * Usage: recursion N K */
#include <stdio.h>
#include <stdlib.h>

void rec(int n) {
  if (n > 1) rec(n - 1);
}

int fib(int n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 10, k = argc > 2 ? atoi(argv[2]) : 10;
  rec(n);
  printf("%d\n", fib(k));
  return 0;
}
