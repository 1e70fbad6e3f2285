/* Traced code before main (constructor) and after it (atexit handler,
 * destructor): the runtime starts at the first event and ends after them. */
#include <stdlib.h>

void in_ctor(void) {}
__attribute__((constructor)) void ctor(void) { in_ctor(); }
void in_dtor(void) {}
__attribute__((destructor)) void dtor(void) { in_dtor(); }
void at_exit_fn(void) {}

int main(void) {
  atexit(at_exit_fn);
  return 0;
}
