/* The image's .cks file: created with O_EXCL under the first free name
 * <pid>-<n>.cks, written with one write(2) per record (O_APPEND: threads
 * never interleave, and a crash leaves whole records). The runtime never
 * writes past RLIMIT_FSIZE (SIGXFSZ would kill the program) and never into
 * a descriptor that the program closed and reused for a file of its own;
 * when the program closed it (daemons close every descriptor), the file is
 * opened again by its name, if that is still the same file. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sample_runtime.h"

uint64_t cks_lost;
static int fd = -1;
static dev_t file_dev;
static ino_t file_ino;
static uint64_t file_size, size_limit;
static char file_path[sizeof cks_cfg.dir + 64];

static int is_ours(int f);

CKS_FN int cks_open_image_file(void) {
  /* A fork's child: the descriptor it inherited is its parent's file. */
  if (is_ours(fd)) close(fd);
  fd = -1;
  char path[sizeof cks_cfg.dir + 64];
  int pid = (int)getpid();
  for (int n = 0; n <= CKS_MAX_SEQUENCE; ++n) {
    snprintf(path, sizeof path, "%s/%d-%d%s", cks_cfg.dir, pid, n, CKS_FILE_SUFFIX);
    int f = open(path, O_WRONLY | O_CREAT | O_EXCL | O_APPEND | O_CLOEXEC | O_NOFOLLOW, 0644);
    if (f < 0) {
      if (errno == EEXIST) continue;
      return 0;
    }
    /* out of the way of programs that expect their first descriptors free */
    int high = fcntl(f, F_DUPFD_CLOEXEC, 500);
    if (high >= 0) {
      close(f);
      f = high;
    }
    struct stat st;
    if (fstat(f, &st) != 0) {
      close(f);
      return 0;
    }
    memcpy(file_path, path, sizeof file_path);
    fd = f;
    file_dev = st.st_dev;
    file_ino = st.st_ino;
    file_size = 0;
    struct rlimit rl;
    size_limit = (getrlimit(RLIMIT_FSIZE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY) ? rl.rlim_cur : UINT64_MAX;
    return 1;
  }
  return 0;
}

CKS_FN void cks_fill_header(void *rec, uint32_t size, uint16_t kind, uint16_t flags) {
  uint32_t *h = rec;
  h[0] = CKS_MAGIC;
  h[1] = (uint32_t)kind | ((uint32_t)flags << 16);
  h[2] = size;
  h[3] = 0;
}

static int is_ours(int f) {
  struct stat st;
  return f >= 0 && fstat(f, &st) == 0 && st.st_dev == file_dev && st.st_ino == file_ino;
}

/* The image file's descriptor, opened again if the program closed it; -1
 * if there is none. The old number is never closed: it may be the
 * program's now. Async-signal-safe. */
static int image_fd(void) {
  int f = __atomic_load_n(&fd, __ATOMIC_ACQUIRE);
  if (f < 0 || is_ours(f)) return f;
  int g = open(file_path, O_WRONLY | O_APPEND | O_CLOEXEC | O_NOFOLLOW);
  if (g < 0) return -1;
  int high = fcntl(g, F_DUPFD_CLOEXEC, 500);
  if (high >= 0) {
    close(g);
    g = high;
  }
  if (!is_ours(g)) {
    close(g);
    return -1;
  }
  /* Another thread may have opened it again first: keep one. */
  if (!__atomic_compare_exchange_n(&fd, &f, g, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
    close(g);
    return f;
  }
  return g;
}

CKS_FN void cks_write_raw(const void *records, uint32_t size) {
  int saved = errno;
  uint64_t at = __atomic_fetch_add(&file_size, size, __ATOMIC_RELAXED);
  int f = at + size > size_limit ? -1 : image_fd();
  if (f < 0 || write(f, records, size) != (ssize_t)size) {
    __atomic_fetch_add(&file_size, -(uint64_t)size, __ATOMIC_RELAXED);
    __atomic_fetch_add(&cks_lost, 1, __ATOMIC_RELAXED);
  }
  errno = saved;
}

CKS_FN void cks_write_record(void *rec, uint32_t size, uint16_t kind, uint16_t flags) {
  cks_fill_header(rec, size, kind, flags);
  cks_write_raw(rec, size);
}

static size_t round8(size_t n) { return (n + 7) & ~(size_t)7; }

CKS_FN void cks_write_image_record(void) {
  uint64_t buf[(CKS_IMAGE_FIXED + 4096 + 8) / 8];
  memset(buf, 0, sizeof buf);
  char *b = (char *)buf;
  uint32_t pid = (uint32_t)getpid(), ppid = (uint32_t)getppid();
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  uint64_t start = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
  memcpy(b + CKS_IMAGE_PID, &pid, 4);
  memcpy(b + CKS_IMAGE_PPID, &ppid, 4);
  memcpy(b + CKS_IMAGE_START_NS, &start, 8);
  ssize_t n = readlink("/proc/self/exe", b + CKS_IMAGE_FIXED, 4095);
  if (n < 0) n = 0;
  b[CKS_IMAGE_FIXED + n] = 0;
  cks_write_record(buf, (uint32_t)round8(CKS_IMAGE_FIXED + (size_t)n + 1), CKS_KIND_IMAGE, 0);
}

CKS_FN void cks_warn(const char *text) {
  uint64_t buf[(CKS_REC_HEADER + 256) / 8];
  memset(buf, 0, sizeof buf);
  size_t n = strlen(text);
  if (n > 255 - 1) n = 255 - 1;
  memcpy((char *)buf + CKS_REC_HEADER, text, n);
  cks_write_record(buf, (uint32_t)round8(CKS_REC_HEADER + n + 1), CKS_KIND_WARNING, 0);
}

CKS_FN void cks_warn_about(const char *subject, const char *what) {
  char text[255];
  size_t n = strnlen(subject, 150), m = strnlen(what, sizeof text - 3 - n);
  memcpy(text, subject, n);
  memcpy(text + n, ": ", 2);
  memcpy(text + n + 2, what, m);
  text[n + 2 + m] = 0;
  cks_warn(text);
}

CKS_FN void cks_warn_once(int *flag, const char *text) {
  if (__atomic_exchange_n(flag, 1, __ATOMIC_RELAXED) == 0) cks_warn(text);
}

CKS_FN void cks_write_end(void) {
  uint64_t buf[CKS_END_FIXED / 8] = {0};
  buf[CKS_END_LOST / 8] = __atomic_load_n(&cks_lost, __ATOMIC_RELAXED);
  cks_write_record(buf, CKS_END_FIXED, CKS_KIND_END, 0);
}
