/* Jump-table shape: the table's base loaded into a register once, before
 * a loop (gcc hoists the `lea table(%rip)` into a callee-saved register
 * in the entry block when the switch sits in a loop with calls), the
 * dispatch far from it. Bound: `cmp $N, %idx; ja default`. */
#include <stdio.h>
#include <stdlib.h>

__attribute__((noinline)) long effect(long x) { return x * 3 + 1; }

__attribute__((noinline)) long interpret(const int *ops, int n) {
  long acc = 0;
  int i = 0;
  do {
    switch (ops[i]) {
      case 0: acc += effect(acc); break;
      case 1: acc -= effect(i); break;
      case 2: acc ^= effect(acc >> 2); break;
      case 3: acc += effect(i * i); break;
      case 4: acc = effect(acc) % 1009; break;
      case 5: acc -= 17; break;
      case 6: acc *= 3; break;
      case 7: acc += effect(-acc); break;
      default: acc = -acc; break;
    }
  } while (++i < n);
  return acc;
}

int main(int argc, char **argv) {
  int ops[64], n = 0;
  int limit = argc > 1 ? atoi(argv[1]) : 5;  /* cases 0..limit run */
  for (int r = 0; r < 4; ++r)
    for (int c = 0; c <= limit && c < 8; ++c) ops[n++] = c;
  printf("%ld\n", interpret(ops, n));
  return 0;
}
