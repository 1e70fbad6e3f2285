/* run_gprof.py sc_trailing_row: main (in .text.startup, the sequence just
 * before .text's) is given a zero-length last row; the static functions of
 * trailing_row_first.h open .text. */
#include "trailing_row_first.h"
#include <stdio.h>
#include <stdlib.h>

static int limit = 1 << 20;

__attribute__((noinline)) int check(int x)
{
  if (x > limit)
    abort();
  return twice(x) + thrice(x);
}

int main(int argc, char **argv)
{
  long sum = 0;
  for (long i = 0; i < 30000000L; i++)
    sum += check((int)(i & 1023) + argc);
  printf("%ld\n", sum);
  return 0;
}
