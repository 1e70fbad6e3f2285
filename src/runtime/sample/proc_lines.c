/* Line by line through a text the kernel writes (/proc/self/maps, a
 * thread's status), without stdio or allocation: what the runtime reads of
 * its own process at its start and end. */
#include <unistd.h>

#include "sample_runtime.h"

CKS_FN int cks_for_each_line(int fd, int (*fn)(const char *line, void *arg), void *arg) {
  char buf[4096], line[CKS_LINE_MAX];
  size_t used = 0;
  ssize_t n;
  while ((n = read(fd, buf, sizeof buf)) > 0) {
    for (ssize_t i = 0; i < n; i++) {
      if (buf[i] != '\n') {
        if (used < sizeof line - 1) line[used++] = buf[i];
        continue;
      }
      line[used] = 0;
      used = 0;
      if (fn(line, arg)) return 0;
    }
  }
  return n < 0 ? -1 : 0;
}
