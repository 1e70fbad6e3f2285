/* The patterns of the runtime's lists for libraries loaded later ("?" lines
 * of covkit-patch and covkit-filters, trace_contract.h): "=name" names a
 * symbol whole, "~regex" by a POSIX extended regex. One store and one match
 * for patch_loads.c and filters.c. */
#ifndef CKT_NAME_PATTERNS_H
#define CKT_NAME_PATTERNS_H

#include <regex.h>

#include "ckt_base.h"

enum { CKT_MAX_NAME_PATTERNS = 64, CKT_NAME_PATTERN_TEXT = 1 << 16 };

struct ckt_name_pattern {
  uint8_t flags; /* what naming a function means (the caller's bits) */
  int regex;
  const char *text;
  regex_t re;
};
struct ckt_name_patterns {
  struct ckt_name_pattern p[CKT_MAX_NAME_PATTERNS];
  uint32_t n, used;
  char text[CKT_NAME_PATTERN_TEXT];
};

/* [p, eol) is "=name" or "~regex"; 0 when malformed, a bad regex or full. */
CKT_FN int ckt_name_pattern_add(struct ckt_name_patterns *s, uint8_t flags, const char *p, const char *eol);
/* The flags of every pattern that names `name`, or-ed; 0 when none does. */
CKT_FN uint8_t ckt_name_patterns_match(const struct ckt_name_patterns *s, const char *name);

#endif
