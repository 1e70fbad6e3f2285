/* The .meta file (docs/trace-format.md, "Process metadata"). O_APPEND and
 * one write per line, so readers never see a torn line; a line that would
 * pass RLIMIT_FSIZE is not written (SIGXFSZ is the program's death), and
 * after a failed write (a full disk) nothing more is. */
#include "process_meta.h"

#include <fcntl.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "clock.h"
#include "trace_contract.h"
#include "trace_files.h"

pid_t ckt_pid, ckt_ppid;
char ckt_exe[CKT_PATH_MAX];
char ckt_image[32];
static int meta_fd = -1;
static unsigned hooks_named;  /* CKT_HOOK_* bits with a `hook` line in this image's file */
static uint64_t meta_dev, meta_ino;  /* the program may close our descriptor and reuse its number */

/* Writes the whole line or stops the file for good (returns 0). */
CKT_FN static int write_line(int fd, struct ckt_line *l) {
  l->buf[l->n] = '\n';
  struct stat st;
  if (fstat(fd, &st) != 0 || !ckt_file_fits((uint64_t)st.st_size + l->n + 1)) return 0;
  const char *p = l->buf;
  size_t left = l->n + 1;
  while (left > 0) {
    ssize_t w = write(fd, p, left);
    if (w <= 0) return 0;
    p += w;
    left -= (size_t)w;
  }
  return 1;
}

/* The file is ours, or the program closed our descriptor (daemons close
 * every one they did not open) and the file, opened again, still is. The
 * old number is left alone: it may be the program's now. */
CKT_FN static int meta_usable(void) {
  if (meta_fd < 0) return 0;  /* never opened, or stopped for good */
  if (ckt_file_is(meta_fd, meta_dev, meta_ino)) return 1;
  meta_fd = ckt_file_reopen(ckt_image, CKT_META_SUFFIX, 0, O_WRONLY | O_APPEND, meta_dev, meta_ino);
  return meta_fd >= 0;
}

CKT_FN void ckt_meta_put(struct ckt_line *l) {
  if (!meta_usable() || !write_line(meta_fd, l)) meta_fd = -1;
}

CKT_FN int ckt_meta_open(void) {
  if (ckt_file_is(meta_fd, meta_dev, meta_ino)) close(meta_fd);  /* a forked child drops its parent's */
  meta_fd = -1;
  struct ckt_line stem;
  ckt_line_init(&stem, "");
  ckt_line_uint(&stem, (uint64_t)ckt_pid);
  stem.buf[stem.n] = 0;
  unsigned seq = 0;
  int fd = ckt_file_create(stem.buf, CKT_META_SUFFIX, O_WRONLY | O_APPEND, &seq);
  if (fd < 0) return 0;
  struct stat st;
  if (fstat(fd, &st) != 0) {
    close(fd);
    return 0;
  }
  meta_fd = fd;
  meta_dev = (uint64_t)st.st_dev;
  meta_ino = (uint64_t)st.st_ino;
  struct ckt_line image;
  ckt_line_init(&image, stem.buf);
  if (seq > 0) {
    ckt_line_char(&image, CKT_SEQUENCE_SEPARATOR);
    ckt_line_uint(&image, seq);
  }
  size_t k = image.n < sizeof ckt_image - 1 ? image.n : sizeof ckt_image - 1;
  memcpy(ckt_image, image.buf, k);
  ckt_image[k] = 0;

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
  /* Why, and what the kernel used (docs/trace-format.md, "Clock"). */
  ckt_line_init(&l, "clock_reason ");
  ckt_line_str(&l, ckt_clock_reason);
  ckt_meta_put(&l);
  if (ckt_kernel_clocksource[0]) {
    ckt_line_init(&l, "clocksource ");
    ckt_line_str(&l, ckt_kernel_clocksource);
    ckt_meta_put(&l);
  }
  unsigned named = __atomic_exchange_n(&hooks_named, 0, __ATOMIC_RELAXED);  /* again in a child's file */
  for (unsigned bit = 1; bit <= CKT_HOOK_PLT; bit <<= 1)
    if (named & bit) ckt_meta_hook(bit);
  return meta_fd >= 0;
}

CKT_FN void ckt_meta_calib(uint64_t *counter, uint64_t *ns) {
  ckt_clock_pair(counter, ns);
  struct ckt_line l;
  ckt_line_init(&l, "calib");
  ckt_line_u64(&l, *counter);
  ckt_line_u64(&l, *ns);
  ckt_meta_put(&l);
}

CKT_FN static void put_thread(pid_t tid, const char *name) {
  struct ckt_line l;
  ckt_line_init(&l, "thread");
  ckt_line_u64(&l, (uint64_t)tid);
  ckt_line_char(&l, ' ');
  ckt_line_str(&l, name);
  ckt_meta_put(&l);
}

CKT_FN void ckt_meta_thread(pid_t tid) {
  char name[17] = {0};
  prctl(PR_GET_NAME, name, 0, 0, 0);
  put_thread(tid, name);
}

CKT_FN void ckt_meta_other_thread(pid_t tid) {
  struct ckt_line path;  /* /proc/self/task/<tid>/comm */
  ckt_line_init(&path, "/proc/self/task/");
  ckt_line_uint(&path, (uint64_t)tid);
  ckt_line_str(&path, "/comm");
  path.buf[path.n] = 0;
  int fd = open(path.buf, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return;  /* gone already */
  char name[32];
  ssize_t n = read(fd, name, sizeof name - 1);
  close(fd);
  if (n <= 0) return;
  while (n > 0 && name[n - 1] == '\n') n--;
  name[n] = 0;
  put_thread(tid, name);
}

CKT_FN void ckt_meta_end(uint64_t when) {
  struct ckt_line l;
  ckt_line_init(&l, "end");
  ckt_line_u64(&l, when);
  ckt_meta_put(&l);
}

CKT_FN void ckt_meta_fork_to_parent(const char *parent_image, uint64_t when, pid_t child) {
  struct ckt_line name;
  ckt_line_init(&name, parent_image);
  ckt_line_str(&name, CKT_META_SUFFIX);
  name.buf[name.n] = 0;
  char path[CKT_PATH_MAX];
  if (!ckt_dir_path(path, sizeof path, name.buf)) return;
  int fd = open(path, O_WRONLY | O_APPEND | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) return;
  struct stat st;
  if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) {
    struct ckt_line l;
    ckt_line_init(&l, "fork");
    ckt_line_u64(&l, when);
    ckt_line_u64(&l, (uint64_t)child);
    write_line(fd, &l);
  }
  close(fd);
}

CKT_FN void ckt_meta_hook(unsigned hook) {
  if (__atomic_fetch_or(&hooks_named, hook, __ATOMIC_RELAXED) & hook) return;
  struct ckt_line l;
  ckt_line_init(&l, hook == CKT_HOOK_MCOUNT  ? "hook mcount"
                    : hook == CKT_HOOK_PATCH ? "hook patch"
                    : hook == CKT_HOOK_PLT   ? "hook plt"
                                             : "hook fentry");
  ckt_meta_put(&l);
}
