/* The text lists that covkit trace record writes for the runtime (filters,
 * patchable entries; formats in trace_contract.h): a magic line, then one
 * line per item, fields separated by single spaces, a module path last. */
#ifndef CKT_LIST_FILE_H
#define CKT_LIST_FILE_H

#include "ckt_base.h"

struct ckt_list {
  const char *map;    /* the whole file, mapped */
  size_t size;
  const char *next;   /* the next item line */
  uint32_t items;     /* lines after the magic one */
};

/* Maps `path` and checks its first line is `magic`; 0 when unreadable,
 * empty or not such a list. */
CKT_FN int ckt_list_open(struct ckt_list *l, const char *path, const char *magic);
CKT_FN void ckt_list_close(struct ckt_list *l);
/* The next item line [*line, *eol) without its newline; 0 at the end, -1
 * when the last line has no newline. */
CKT_FN int ckt_list_line(struct ckt_list *l, const char **line, const char **eol);
/* A lower-case hex field of at most 16 digits followed by a space; advances
 * *p past the space. */
CKT_FN int ckt_list_hex(const char **p, const char *eol, uint64_t *out);
/* The rest of the line as a module path: its ckt_path_hash. */
CKT_FN int ckt_list_path_hash(const char *p, const char *eol, uint64_t *hash);

#endif
