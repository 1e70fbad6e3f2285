/* One line of the .meta file, built without stdio or allocation. */
#ifndef CKT_TEXT_LINE_H
#define CKT_TEXT_LINE_H

#include "ckt_base.h"

struct ckt_line {
  size_t n;
  char buf[CKT_PATH_MAX + 256];
};

CKT_FN void ckt_line_init(struct ckt_line *l, const char *key);  /* "key" */
CKT_FN void ckt_line_str(struct ckt_line *l, const char *s);     /* appended as is */
CKT_FN void ckt_line_u64(struct ckt_line *l, uint64_t v);        /* " 123" */
CKT_FN void ckt_line_uint(struct ckt_line *l, uint64_t v);       /* "123" */
CKT_FN void ckt_line_hex(struct ckt_line *l, uint64_t v);        /* " 7f00ab" */
CKT_FN void ckt_line_char(struct ckt_line *l, char c);

#endif
