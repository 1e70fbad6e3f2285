/* The .meta file (docs/trace-format.md, "Process metadata"). O_APPEND and
 * one write per line, so readers never see a torn line. */
#include "process_meta.h"

#include <fcntl.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "clock.h"
#include "config.h"

pid_t ckt_pid, ckt_ppid;
char ckt_exe[CKT_PATH_MAX];
static int meta_fd = -1;
static uint64_t meta_dev, meta_ino;  /* the program may close our descriptor and reuse its number */

CKT_FN int ckt_meta_path(char *out, size_t size, const char *name) {
  size_t d = strlen(ckt_cfg.dir), n = strlen(name);
  if (d + 1 + n + 1 > size) return 0;
  memcpy(out, ckt_cfg.dir, d);
  out[d] = '/';
  memcpy(out + d + 1, name, n + 1);
  return 1;
}

CKT_FN static void write_line(int fd, struct ckt_line *l) {
  l->buf[l->n] = '\n';
  const char *p = l->buf;
  size_t left = l->n + 1;
  while (left > 0) {
    ssize_t w = write(fd, p, left);
    if (w <= 0) return;
    p += w;
    left -= (size_t)w;
  }
}

CKT_FN void ckt_meta_put(struct ckt_line *l) {
  struct stat st;
  if (meta_fd < 0) return;
  if (fstat(meta_fd, &st) != 0 || (uint64_t)st.st_dev != meta_dev || (uint64_t)st.st_ino != meta_ino) {
    meta_fd = -1;
    return;
  }
  write_line(meta_fd, l);
}

CKT_FN static void pid_name(char *out, pid_t pid, const char *suffix) {
  struct ckt_line l;
  ckt_line_init(&l, "");
  ckt_line_u64(&l, (uint64_t)pid);
  ckt_line_str(&l, suffix);
  memcpy(out, l.buf + 1, l.n - 1);  /* without ckt_line_u64's leading space */
  out[l.n - 1] = 0;
}

CKT_FN int ckt_meta_open(void) {
  char name[64], path[CKT_PATH_MAX];
  pid_name(name, ckt_pid, ".meta");
  if (!ckt_meta_path(path, sizeof path, name)) return 0;
  struct stat st;
  if (meta_fd >= 0 && fstat(meta_fd, &st) == 0 && (uint64_t)st.st_dev == meta_dev &&
      (uint64_t)st.st_ino == meta_ino)
    close(meta_fd);  /* a forked child drops its parent's */
  meta_fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0644);
  if (meta_fd < 0) return 0;
  fchmod(meta_fd, 0644);
  if (fstat(meta_fd, &st) != 0) {
    close(meta_fd);
    meta_fd = -1;
    return 0;
  }
  meta_dev = (uint64_t)st.st_dev;
  meta_ino = (uint64_t)st.st_ino;

  if (!ckt_exe[0]) {
    ssize_t n = readlink("/proc/self/exe", ckt_exe, sizeof ckt_exe - 1);
    ckt_exe[n > 0 ? n : 0] = 0;
  }
  struct ckt_line l;
  ckt_line_init(&l, "covkit-trace 1");
  ckt_meta_put(&l);
  ckt_line_init(&l, "pid");
  ckt_line_u64(&l, (uint64_t)ckt_pid);
  ckt_meta_put(&l);
  ckt_line_init(&l, "ppid");
  ckt_line_u64(&l, (uint64_t)ckt_ppid);
  ckt_meta_put(&l);
  ckt_line_init(&l, "exe ");
  ckt_line_str(&l, ckt_exe);
  ckt_meta_put(&l);
  ckt_line_init(&l, ckt_clock_tsc ? "clock tsc" : "clock mono");
  ckt_meta_put(&l);
  return 1;
}

CKT_FN void ckt_meta_calib(uint64_t *counter, uint64_t *ns) {
  ckt_clock_pair(counter, ns);
  struct ckt_line l;
  ckt_line_init(&l, "calib");
  ckt_line_u64(&l, *counter);
  ckt_line_u64(&l, *ns);
  ckt_meta_put(&l);
}

CKT_FN void ckt_meta_thread(pid_t tid) {
  char name[17] = {0};
  prctl(PR_GET_NAME, name, 0, 0, 0);
  struct ckt_line l;
  ckt_line_init(&l, "thread");
  ckt_line_u64(&l, (uint64_t)tid);
  ckt_line_char(&l, ' ');
  ckt_line_str(&l, name);
  ckt_meta_put(&l);
}

CKT_FN void ckt_meta_end(uint64_t when) {
  struct ckt_line l;
  ckt_line_init(&l, "end");
  ckt_line_u64(&l, when);
  ckt_meta_put(&l);
}

CKT_FN void ckt_meta_fork_to_parent(pid_t parent, uint64_t when, pid_t child) {
  char name[64], path[CKT_PATH_MAX];
  pid_name(name, parent, ".meta");
  if (!ckt_meta_path(path, sizeof path, name)) return;
  int fd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC);
  if (fd < 0) return;
  struct ckt_line l;
  ckt_line_init(&l, "fork");
  ckt_line_u64(&l, when);
  ckt_line_u64(&l, (uint64_t)child);
  write_line(fd, &l);
  close(fd);
}
