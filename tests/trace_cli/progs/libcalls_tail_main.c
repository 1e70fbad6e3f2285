/* tail_into (libcalls_tail_lib.c, a library call) tail-calls tail_back,
 * instrumented: N calls of each; prints the sum 1 + 2 + ... + N. */
#include <stdio.h>
#include <stdlib.h>

void tail_into(int v);
static int total;
__attribute__((noinline)) void tail_back(int v) { total += v; }

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 3;
  for (int i = 0; i < n; i++) tail_into(i);
  printf("%d\n", total);
  return 0;
}
