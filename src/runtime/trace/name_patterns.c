/* Patterns for libraries loaded later (see name_patterns.h). */
#include "name_patterns.h"

#include <string.h>

#include "trace_contract.h"

CKT_FN int ckt_name_pattern_add(struct ckt_name_patterns *s, uint8_t flags, const char *p, const char *eol) {
  if (eol - p < 2 || s->n == CKT_MAX_NAME_PATTERNS) return 0;
  size_t len = (size_t)(eol - p - 1);
  if ((p[0] != CKT_PATCH_EXACT && p[0] != CKT_PATCH_REGEX) || s->used + len + 1 > sizeof s->text) return 0;
  char *text = s->text + s->used;
  memcpy(text, p + 1, len);
  text[len] = 0;
  s->used += (uint32_t)len + 1;
  struct ckt_name_pattern *x = &s->p[s->n];
  x->flags = flags, x->text = text, x->regex = p[0] == CKT_PATCH_REGEX;
  if (x->regex && regcomp(&x->re, text, REG_EXTENDED | REG_NOSUB) != 0) return 0;
  s->n++;
  return 1;
}

CKT_FN uint8_t ckt_name_patterns_match(const struct ckt_name_patterns *s, const char *name) {
  uint8_t flags = 0;
  for (uint32_t i = 0; i < s->n; i++)
    if (s->p[i].regex ? regexec(&s->p[i].re, name, 0, NULL, 0) == 0 : strcmp(name, s->p[i].text) == 0)
      flags |= s->p[i].flags;
  return flags;
}
