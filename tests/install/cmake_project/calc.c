#include "calc.h"

int collatz_steps(int n) {
  int steps = 0;
  while (n != 1) {
    n = n % 2 ? 3 * n + 1 : n / 2;
    steps++;
  }
  return steps;
}

/* No test calls it: line coverage stays below 100%. */
int never_called(int n) {
  if (n > 0) return n * 2;
  return -n;
}
