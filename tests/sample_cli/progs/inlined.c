/* Helpers that gcc -O2 inlines into main while it keeps an out-of-line
   copy that never runs: square, scale and shout are global (exported, so
   their copies stay), twice is static with its address taken. The run
   calls square, scale and twice (inlined), never shout, whose inlined
   instance sits on a path not taken. */
#include <stdio.h>
#include <stdlib.h>

int square(int x) {
  return x * x;
}

int scale(int v, int k) {
  int r = 0;
  for (int i = 0; i < k; i++)
    r += v ^ i;
  return r;
}

int shout(int x) {
  printf("big %d\n", x);
  return x * 3;
}

static int twice(int x) {
  return x + x;
}

static int (*volatile keep)(int);

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 3;
  keep = twice;
  int s = square(n);
  if (n > 1000)
    s = shout(s);
  printf("%d %d %d\n", s, scale(s, n), twice(n));
  return 0;
}
