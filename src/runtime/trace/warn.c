/* One line on stderr, without stdio (the program's buffers are its own). */
#include "warn.h"

#include <unistd.h>

#include "text_line.h"

CKT_FN void ckt_warn(const char *what, const char *path) {
  static int warned;
  if (__atomic_exchange_n(&warned, 1, __ATOMIC_RELAXED)) return;
  struct ckt_line l;
  ckt_line_init(&l, "covkit-trace: ");
  ckt_line_str(&l, what);
  ckt_line_str(&l, " ");
  ckt_line_str(&l, path);
  ckt_line_str(&l, " (tracing off)\n");
  if (write(2, l.buf, l.n) < 0) { /* nothing to do */ }
}
