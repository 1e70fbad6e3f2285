#include <stdio.h>
#include <stdlib.h>

static int fib(int n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }

int main(int argc, char **argv) {
  printf("%d\n", fib(argc > 1 ? atoi(argv[1]) : 10));
  return 0;
}
