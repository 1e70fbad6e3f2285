/* Breakpoint mode's files shared by the processes of one recording, per
 * object (the same build from the same path), named
 * "<build-id hex>-<path hash>-<sites><suffix>" in the recording directory:
 *
 *   .hits  one flag per site, 1 once hit in any process (mapped shared):
 *          later processes plant only what earlier ones did not reach, as
 *          UnTracer does for fuzzing;
 *   .text  the object's executable segment with its int3s in, made once by
 *          the first process and mapped shared over the segment by every
 *          process after it: one mmap instead of copying and writing each
 *          page of text through /proc/self/mem (a copy-on-write fault and a
 *          TLB flush a page, ~4.5 ms a process for zstd's 190 pages on this
 *          VM). A trap puts the byte back in the file, so a block that ran
 *          in one process stops trapping in all of them, running or not.
 *          The mapping is private: a page a process writes itself is its
 *          own copy (where a byte is then put back through
 *          /proc/self/mem), never the file's.
 *
 * Never called from a handler, but cks_shared_text_restore. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sample_runtime.h"

#define PAGE 4096ull
#define INT3 0xcc

/* The shared file's path for `object`; 0 without a build-id (nothing
 * tells two builds at one path apart then). */
static int shared_path(char *path, size_t cap, const char *object, const unsigned char *id, uint32_t id_size,
                       uint32_t count, const char *suffix) {
  if (!id_size) return 0;
  static const char digits[] = "0123456789abcdef";
  char idhex[2 * CKS_MAX_BUILD_ID + 1];
  for (uint32_t i = 0; i < id_size; ++i) {
    idhex[2 * i] = digits[id[i] >> 4];
    idhex[2 * i + 1] = digits[id[i] & 15];
  }
  idhex[2 * id_size] = 0;
  /* Two copies of one build at two paths are two objects to the reports. */
  uint64_t h = 0xcbf29ce484222325ull; /* FNV-1a of the object's path */
  for (const char *c = object; *c; ++c) h = (h ^ (unsigned char)*c) * 0x100000001b3ull;
  int n = snprintf(path, cap, "%s/%s-%016llx-%u%s", cks_cfg.dir, idhex, (unsigned long long)h, count, suffix);
  return n > 0 && (size_t)n < cap;
}

CKS_FN unsigned char *cks_shared_hits(const char *object, const unsigned char *id, uint32_t id_size, uint32_t count) {
  char path[sizeof cks_cfg.dir + 2 * CKS_MAX_BUILD_ID + 64];
  if (!shared_path(path, sizeof path, object, id, id_size, count, CKS_HITS_SUFFIX)) return NULL;
  int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
  if (fd < 0) return NULL;
  struct stat st;
  void *p = MAP_FAILED;
  /* Two processes may create it at once: both make it `count` bytes. */
  if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && (st.st_size == (off_t)count || (st.st_size == 0 && ftruncate(fd, count) == 0)))
    p = mmap(NULL, count, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  close(fd);
  return p == MAP_FAILED ? NULL : p;
}

static int write_all_at(int fd, const void *bytes, size_t size, off_t at) {
  const char *p = bytes;
  while (size) {
    ssize_t n = pwrite(fd, p, size, at);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return 0;
    p += n;
    size -= (size_t)n;
    at += n;
  }
  return 1;
}

/* Writes the planted text of [lo, hi) to a new file and links it in as
 * `path`; the descriptor of whichever file got the name (another process
 * may have made it first), -1 on failure. */
static int create_text(const char *path, uint64_t lo, uint64_t hi, const struct cks_text_sites *s) {
  char tmp[sizeof cks_cfg.dir + 2 * CKS_MAX_BUILD_ID + 96];
  if (snprintf(tmp, sizeof tmp, "%s.%d.tmp", path, (int)getpid()) >= (int)sizeof tmp) return -1;
  int fd = open(tmp, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
  if (fd < 0) return -1;
  static unsigned char page[PAGE];
  uint32_t k = 0;
  int ok = 1;
  for (uint64_t at = lo; ok && at < hi; at += PAGE) {
    memcpy(page, (const void *)at, PAGE);
    for (; k < s->count && s->sites[k] < at + PAGE; ++k)
      if (!__atomic_load_n(&s->hit[k], __ATOMIC_RELAXED)) page[s->sites[k] - at] = INT3;
    ok = write_all_at(fd, page, PAGE, (off_t)(at - lo));
  }
  if (ok && link(tmp, path) != 0) {
    ok = errno == EEXIST;
    close(fd);
    fd = ok ? open(path, O_RDWR | O_CLOEXEC | O_NOFOLLOW) : -1;
  }
  unlink(tmp);
  if (!ok && fd >= 0) {
    close(fd);
    fd = -1;
  }
  return fd;
}

CKS_FN int cks_shared_text(const char *object, const unsigned char *id, uint32_t id_size, uint64_t lo, uint64_t hi,
                           int prot, const struct cks_text_sites *s, struct cks_text *out) {
  char path[sizeof cks_cfg.dir + 2 * CKS_MAX_BUILD_ID + 64];
  if (!shared_path(path, sizeof path, object, id, id_size, s->count, CKS_TEXT_SUFFIX)) return 0;
  int fd = open(path, O_RDWR | O_CLOEXEC | O_NOFOLLOW);
  if (fd < 0 && errno == ENOENT) fd = create_text(path, lo, hi, s);
  if (fd < 0) return 0;
  /* Code is run from it: it must be ours alone and whole. */
  struct stat st;
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_uid != geteuid() || (st.st_mode & 022) ||
      st.st_size != (off_t)(hi - lo)) {
    close(fd);
    return 0;
  }
  /* Mapped aside, then moved over the segment in one step: the text is
   * never absent, and a failure leaves the original in place. Privately:
   * a page the program never writes is the file's (shared by every
   * process, a byte put back in the file is back in all of them), but one
   * it writes itself (code it patches after mprotect, a debugger's
   * breakpoint) becomes its own copy, as with the program's own text;
   * shared, such a write went into the file, so into every other process
   * of the recording and every later one. */
  void *p = mmap(NULL, hi - lo, prot, MAP_PRIVATE, fd, 0);
  if (p == MAP_FAILED) {
    close(fd);
    return 0;
  }
  if (mremap(p, hi - lo, hi - lo, MREMAP_MAYMOVE | MREMAP_FIXED, (void *)lo) == MAP_FAILED) {
    munmap(p, hi - lo);
    close(fd);
    return 0;
  }
  /* out of the way of programs that expect their first descriptors free */
  int high = fcntl(fd, F_DUPFD_CLOEXEC, 500);
  if (high >= 0) {
    close(fd);
    fd = high;
  }
  out->lo = lo;
  out->dev = st.st_dev;
  out->ino = st.st_ino;
  __atomic_store_n(&out->fd, fd, __ATOMIC_RELEASE); /* the handler may be reading it already */
  return 1;
}

CKS_FN int cks_shared_text_restore(const struct cks_text *t, uint64_t at, unsigned char byte) {
  struct stat st;
  /* A descriptor the program closed and reused is another file. */
  if (t->fd < 0 || fstat(t->fd, &st) != 0 || st.st_dev != t->dev || st.st_ino != t->ino) return 0;
  ssize_t n;
  do n = pwrite(t->fd, &byte, 1, (off_t)(at - t->lo));
  while (n < 0 && errno == EINTR);
  return n == 1 && *(volatile unsigned char *)at == byte;
}

CKS_FN void cks_shared_text_close(struct cks_text *t) {
  int f = __atomic_exchange_n(&t->fd, -1, __ATOMIC_ACQ_REL);
  struct stat st;
  /* Only if it is still the file: the program may have closed and reused the number. */
  if (f >= 0 && fstat(f, &st) == 0 && st.st_dev == t->dev && st.st_ino == t->ino) close(f);
}
