/* Safe creation and growth of trace files. */
#include "trace_files.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config.h"
#include "text_line.h"
#include "trace_contract.h"

CKT_FN int ckt_dir_path(char *out, size_t size, const char *name) {
  size_t d = strlen(ckt_cfg.dir), n = strlen(name);
  if (d + 1 + n + 1 > size) return 0;
  memcpy(out, ckt_cfg.dir, d);
  out[d] = '/';
  memcpy(out + d + 1, name, n + 1);
  return 1;
}

/* <dir>/<stem><suffix>, or <dir>/<stem>.<n><suffix> for n >= 1. */
CKT_FN static int file_path(char *path, size_t size, const char *stem, const char *suffix, unsigned n) {
  struct ckt_line l;
  ckt_line_init(&l, stem);
  if (n > 0) {
    ckt_line_char(&l, CKT_SEQUENCE_SEPARATOR);
    ckt_line_uint(&l, n);
  }
  ckt_line_str(&l, suffix);
  l.buf[l.n] = 0;
  if (ckt_dir_path(path, size, l.buf)) return 1;
  errno = ENAMETOOLONG;
  return 0;
}

CKT_FN int ckt_file_create(const char *stem, const char *suffix, int flags, unsigned *seq) {
  for (unsigned n = 0; n <= CKT_MAX_SEQUENCE; n++) {
    char path[CKT_PATH_MAX];
    if (!file_path(path, sizeof path, stem, suffix, n)) return -1;
    int fd = open(path, flags | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (fd >= 0) {
      *seq = n;
      return fd;
    }
    if (errno != EEXIST) return -1;  /* an existing name (or a symlink) is never ours: try the next */
  }
  return -1;
}

CKT_FN int ckt_file_is(int fd, uint64_t dev, uint64_t ino) {
  struct stat st;
  return fd >= 0 && fstat(fd, &st) == 0 && (uint64_t)st.st_dev == dev && (uint64_t)st.st_ino == ino;
}

CKT_FN int ckt_file_reopen(const char *stem, const char *suffix, unsigned seq, int flags, uint64_t dev,
                           uint64_t ino) {
  char path[CKT_PATH_MAX];
  if (!file_path(path, sizeof path, stem, suffix, seq)) return -1;
  int fd = open(path, flags | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) return -1;
  if (!ckt_file_is(fd, dev, ino)) {
    close(fd);  /* removed, or replaced by another file: not ours */
    return -1;
  }
  /* Out of the low numbers, which a program that has just closed all of
   * its descriptors expects its own next open()s to get. */
  int high = fcntl(fd, F_DUPFD_CLOEXEC, CKT_REOPEN_MIN_FD);
  if (high >= 0) {
    close(fd);
    fd = high;
  }
  return fd;
}

CKT_FN int ckt_file_fits(uint64_t end) {
  struct rlimit r;
  if (getrlimit(RLIMIT_FSIZE, &r) != 0 || r.rlim_cur == RLIM_INFINITY) return 1;
  return end <= (uint64_t)r.rlim_cur;
}

CKT_FN int ckt_file_reserve(int fd, uint64_t off, uint64_t len) {
  if (!ckt_file_fits(off + len)) return 0;
  int rc;
  do rc = fallocate(fd, 0, (off_t)off, (off_t)len);
  while (rc != 0 && errno == EINTR);
  if (rc == 0) return 1;
  if (errno != EOPNOTSUPP) return 0;
  /* A file system without fallocate: write the zeros (they allocate). */
  static const uint8_t zeros[65536];
  while (len > 0) {
    size_t k = len < sizeof zeros ? (size_t)len : sizeof zeros;
    ssize_t w = pwrite(fd, zeros, k, (off_t)off);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return 0;
    off += (uint64_t)w;
    len -= (uint64_t)w;
  }
  return 1;
}
