#include "util.h"

int other(int x) {
  int r = pick<long>(x, 2, x > 5) > 3 ? 1 : 0;
#ifdef NEVER_DEFINED
  r += 100;
#endif
  return r + used_inline(x);
}
