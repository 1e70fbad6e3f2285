/* Traced code before main (constructor) and after it (atexit handler,
 * destructor): the runtime starts at the first event and ends after them. */
#include <stdlib.h>

/* Not empty: GCC drops the calls of an empty function (no side effect),
 * which -pg builds (unlike -finstrument-functions ones) would show. */
void in_ctor(void) { __asm__ __volatile__(""); }
__attribute__((constructor)) void ctor(void) { in_ctor(); }
void in_dtor(void) { __asm__ __volatile__(""); }
__attribute__((destructor)) void dtor(void) { in_dtor(); }
void at_exit_fn(void) { __asm__ __volatile__(""); }

int main(void) {
  atexit(at_exit_fn);
  return 0;
}
