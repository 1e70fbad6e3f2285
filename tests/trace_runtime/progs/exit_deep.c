/* exit() from deep inside: the atexit handler runs inside c (exit was called
 * there), then the runtime closes every open frame and ends the streams. */
#include <stdlib.h>

/* Not empty: GCC drops the calls of an empty function (no side effect),
 * which -pg builds (unlike -finstrument-functions ones) would show. */
void cleanup(void) { __asm__ __volatile__(""); }
void handler(void) { cleanup(); }
void c(void) { exit(3); }
void b(void) { c(); }
void a(void) { b(); }

int main(void) {
  atexit(handler);
  a();
  return 0;
}
