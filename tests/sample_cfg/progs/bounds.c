/* Jump-table shape: bound checks of every shape gcc emits for a switch:
 *  - below: `cmp $N,%reg; ja default` with the index biased first
 *    (`sub $10` / `lea -10(%rdi)`: cases 10..17);
 *  - in memory: `cmpl $7,(%rsi); ja default`, the index loaded again
 *    after the check (a switch on a struct's field, lcode.c's luaK_exp2K);
 *  - a byte index (`movzbl`), the check on the byte;
 *  - a check in a dominator far from the dispatch (a loop in between
 *    that does not touch the index). */
#include <stdio.h>
#include <stdlib.h>

volatile long sink;

__attribute__((noinline)) long biased(int x) {
  switch (x) {
    case 10: return sink + 3;
    case 11: return sink * 5;
    case 12: return sink - 7;
    case 13: return sink ^ 11;
    case 14: return sink + 13;
    case 15: return sink * 17;
    case 16: return sink - 19;
    case 17: return sink | 23;
    default: return -1;
  }
}

struct expr { int kind; long value; };

__attribute__((noinline)) long in_memory(struct expr *e) {
  switch (e->kind) {
    case 0: return e->value + 1;
    case 1: return e->value * 2;
    case 2: return e->value - 3;
    case 3: return e->value ^ 4;
    case 4: return e->value << 1;
    case 5: return e->value | 6;
    case 6: return e->value % 7;
    case 7: return -e->value;
    default: return 0;
  }
}

__attribute__((noinline)) long by_byte(const unsigned char *s) {
  long n = 0;
  for (; *s; ++s) {
    switch (*s) {
      case 'a': n += 1; break;
      case 'b': n += 20; break;
      case 'c': n *= 3; break;
      case 'd': n -= 4; break;
      case 'e': n ^= 5; break;
      case 'f': n += 60; break;
      case 'g': n -= 7; break;
      default: n += 100; break;
    }
  }
  return n;
}

__attribute__((noinline)) long far_check(unsigned k, const long *v, int n) {
  if (k > 6) return -1;
  long t = 0;
  for (int i = 0; i < n; ++i) t += v[i] * (i + 1);  /* k untouched */
  switch (k) {
    case 0: return t + 1;
    case 1: return t * 3;
    case 2: return t - 5;
    case 3: return t ^ 7;
    case 4: return t + 9;
    case 5: return t * 11;
    default: return t - 13;
  }
}

int main(int argc, char **argv) {
  int some = argc > 1 ? atoi(argv[1]) : 4;  /* how many cases of each run */
  long t = 0;
  for (int i = 0; i < some; ++i) t += biased(10 + i);
  struct expr e = {0, 5};
  for (int i = 0; i < some; ++i) { e.kind = i; t += in_memory(&e); }
  const char *text = some > 4 ? "abcdefgz" : "abcdz";
  t += by_byte((const unsigned char *)text);
  long v[4] = {1, 2, 3, 4};
  for (int i = 0; i < some; ++i) t += far_check((unsigned)i, v, 4);
  printf("%ld\n", t);
  return 0;
}
