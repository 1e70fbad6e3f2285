/* Jump-table shape: cases in another section. With cases gcc thinks
 * unlikely (__builtin_expect, cold calls), it moves them to the
 * function's .cold part (.text.unlikely): the table's entries point out
 * of the function, into another symbol, and the code there jumps back. */
#include <stdio.h>
#include <stdlib.h>

__attribute__((noinline, cold)) void complain(const char *what) { fprintf(stderr, "odd: %s\n", what); }

__attribute__((noinline)) long classify(int x, long acc) {
  switch (x) {
    case 0: acc += 1; break;
    case 1: acc *= 2; break;
    case 2: complain("two"); acc -= 2; break;
    case 3: acc ^= 3; break;
    case 4: complain("four"); acc += 40; break;
    case 5: acc -= 5; break;
    case 6: complain("six"); acc *= 6; break;
    case 7: acc |= 7; break;
    default: acc = 0; break;
  }
  return acc;
}

int main(int argc, char **argv) {
  int odd = argc > 1 && argv[1][0] == 'o';  /* the cold cases run only then */
  long acc = 1;
  for (int r = 0; r < 3; ++r)
    for (int c = 0; c < 8; ++c)
      if (odd || (c != 2 && c != 4 && c != 6)) acc = classify(c, acc);
  printf("%ld\n", acc);
  return 0;
}
