/* Burns 0.3 s, then writes through a null pointer. */
#include "spin.h"

int main(void) {
  spin(0.3);
  *(volatile int *)0 = 1;
  return 0;
}
