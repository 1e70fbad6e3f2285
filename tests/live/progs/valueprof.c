/* Built with -fprofile-generate: besides arcs, libgcov keeps top-N value
   lists (a divisor), indirect-call lists (a function pointer) and first-call
   times. wait_and_dump() (valueprof_wait.c, not instrumented) blocks until a
   byte arrives, then calls __gcov_dump(). */
#include <stdio.h>

void wait_and_dump(void);
static int (*fp)(int);
static int add_one(int x) { return x + 1; }
static int triple(int x) { return x * 3; }
__attribute__((noinline)) static int divmod(int x, int y) { return x / y + x % y; }

int main(void) {
  long s = 0;
  for (int i = 0; i < 1000; i++) {
    fp = (i % 3) ? add_one : triple;
    s += fp(i);
    s += divmod(i + 7, (i % 4) + 1);
  }
  wait_and_dump();
  printf("%ld\n", s);
  return 0;
}
