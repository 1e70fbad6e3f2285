/* Number and string formatting for .meta lines. */
#include "text_line.h"

#include <string.h>

/* Room kept for the final '\n' that ckt_meta_put adds. */
#define ROOM(l) (sizeof (l)->buf - 1 - (l)->n)

CKT_FN void ckt_line_char(struct ckt_line *l, char c) {
  if (ROOM(l) > 0) l->buf[l->n++] = c;
}

CKT_FN void ckt_line_str(struct ckt_line *l, const char *s) {
  for (; *s && ROOM(l) > 0; s++) {
    /* A path with a newline would break the line format: shown as '?'. */
    l->buf[l->n++] = *s == '\n' ? '?' : *s;
  }
}

CKT_FN void ckt_line_init(struct ckt_line *l, const char *key) {
  l->n = 0;
  ckt_line_str(l, key);
}

CKT_FN void ckt_line_uint(struct ckt_line *l, uint64_t v) {
  char tmp[24];
  int i = 0;
  do tmp[i++] = (char)('0' + v % 10);
  while ((v /= 10) != 0);
  while (i > 0) ckt_line_char(l, tmp[--i]);
}

CKT_FN void ckt_line_u64(struct ckt_line *l, uint64_t v) {
  ckt_line_char(l, ' ');
  ckt_line_uint(l, v);
}

CKT_FN void ckt_line_hex(struct ckt_line *l, uint64_t v) {
  char tmp[20];
  int i = 0;
  do tmp[i++] = "0123456789abcdef"[v & 15];
  while ((v >>= 4) != 0);
  ckt_line_char(l, ' ');
  while (i > 0) ckt_line_char(l, tmp[--i]);
}
