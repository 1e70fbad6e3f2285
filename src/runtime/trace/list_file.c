/* Reading covkit's lists (see list_file.h). */
#include "list_file.h"

#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "modules.h"

CKT_FN int ckt_list_open(struct ckt_list *l, const char *path, const char *magic) {
  memset(l, 0, sizeof *l);
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return 0;
  struct stat st;
  void *m = MAP_FAILED;
  if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0)
    m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
  close(fd);
  if (m == MAP_FAILED) return 0;
  l->map = m;
  l->size = (size_t)st.st_size;
  size_t n = strlen(magic);
  if (l->size < n + 1 || memcmp(l->map, magic, n) != 0 || l->map[n] != '\n') {
    ckt_list_close(l);
    return 0;
  }
  l->next = l->map + n + 1;
  for (const char *q = l->next; q < l->map + l->size; q++) l->items += *q == '\n';
  return 1;
}

CKT_FN void ckt_list_close(struct ckt_list *l) {
  if (l->map) munmap((void *)l->map, l->size);
  l->map = NULL;
}

CKT_FN int ckt_list_line(struct ckt_list *l, const char **line, const char **eol) {
  const char *end = l->map + l->size;
  if (l->next >= end) return 0;
  const char *e = memchr(l->next, '\n', (size_t)(end - l->next));
  if (!e) return -1;
  *line = l->next;
  *eol = e;
  l->next = e + 1;
  return 1;
}

CKT_FN int ckt_list_hex(const char **p, const char *eol, uint64_t *out) {
  const char *s = *p;
  uint64_t v = 0;
  int n = 0;
  for (; s < eol && *s != ' '; s++, n++) {
    int d = *s >= '0' && *s <= '9' ? *s - '0' : *s >= 'a' && *s <= 'f' ? *s - 'a' + 10 : -1;
    if (d < 0 || n == 16) return 0;
    v = v << 4 | (uint64_t)d;
  }
  if (n == 0 || s == eol) return 0;
  *out = v;
  *p = s + 1;
  return 1;
}

CKT_FN int ckt_list_path_hash(const char *p, const char *eol, uint64_t *hash) {
  char path[CKT_PATH_MAX];
  size_t n = (size_t)(eol - p);
  if (n == 0 || n >= sizeof path) return 0;
  memcpy(path, p, n);
  path[n] = 0;
  *hash = ckt_path_hash(path);
  return 1;
}
