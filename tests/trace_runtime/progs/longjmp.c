/* longjmp out of several frames, from main and from a nested jumper, and out
 * of a recursion. Usage: longjmp ROUNDS RECDEPTH */
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>

/* Real frames: copies inlined into one host frame share its stack slot and
 * cannot be told apart from it (see the runtime's shadow_stack.h). */
#ifdef __clang__
#define FRAME __attribute__((noinline))
#else
#define FRAME __attribute__((noinline, noclone))
#endif

static jmp_buf jb;

FRAME void c(int jump) {
  if (jump) longjmp(jb, 1);
}
FRAME void b(int jump) { c(jump); }
FRAME void a(int jump) { b(jump); }
/* Not empty: GCC drops the calls of an empty function (no side effect),
 * which -pg builds (unlike -finstrument-functions ones) would show. */
FRAME void d(void) { __asm__ __volatile__(""); }

FRAME void rl(int n) {
  if (n == 1) longjmp(jb, 2);
  rl(n - 1);
}

/* setjmp in a function that is itself traced. */
FRAME void jumper(void) {
  if (setjmp(jb) == 0) a(1);
  else d();
}

/* Calls through a pointer from one call site: a(1) longjmps out, then e()
 * from the same site must not nest under the abandoned a. */
FRAME void e(int x) { (void)x; }
typedef void (*fnp)(int);
FRAME void via_pointer(void) {
  static fnp volatile table[2] = {a, e};
  for (volatile int i = 0; i < 4; i++)
    if (setjmp(jb) == 0) table[i % 2](1);
}

int main(int argc, char **argv) {
  volatile int rounds = argc > 1 ? atoi(argv[1]) : 3, depth = argc > 2 ? atoi(argv[2]) : 10;
  for (volatile int i = 0; i < rounds; i++) {
    if (setjmp(jb) == 0) a(1);
    else d();
  }
  a(0);
  jumper();
  jumper();
  if (setjmp(jb) == 0) rl(depth);
  d();
  via_pointer();
  puts("done");
  return 0;
}
