/* Chunked, memory-mapped thread stream files. */
#include "stream_writer.h"

#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config.h"
#include "encode.h"
#include "process_meta.h"

CKT_FN static size_t overlap_bytes(void) {
  long page = sysconf(_SC_PAGESIZE);
  return page > 4096 ? (size_t)page : 4096;
}

/* fd is still the file we created (never truncate someone else's). */
CKT_FN static int fd_is_ours(const struct ckt_stream *s) {
  struct stat st;
  return fstat(s->fd, &st) == 0 && (uint64_t)st.st_dev == s->dev && (uint64_t)st.st_ino == s->ino;
}

CKT_FN static int map_chunk(struct ckt_stream *s, uint64_t off) {
  size_t chunk = ckt_cfg.chunk_bytes, over = overlap_bytes();
  if (!fd_is_ours(s)) return 0;
  if (ftruncate(s->fd, (off_t)(off + chunk + over)) != 0) return 0;
  void *m = mmap(NULL, chunk + over, PROT_READ | PROT_WRITE, MAP_SHARED, s->fd, (off_t)off);
  if (m == MAP_FAILED) return 0;
  /* Prefault writable: one call instead of a page fault per page (on ext4
   * even populated shared pages fault once more at their first write). A
   * thread's first chunk only in part: most threads write little. */
#ifdef MADV_POPULATE_WRITE
  madvise(m, off == 0 ? (chunk < 65536 ? chunk : 65536) : chunk + over, MADV_POPULATE_WRITE);
#endif
  s->map = m;
  s->map_off = off;
  s->limit = s->map + chunk;
  return 1;
}

CKT_FN static void go_broken(struct ckt_stream *s) {
  s->broken = 1;
  s->cur = s->scratch;
  s->limit = s->scratch + 4096;  /* scratch holds 8 KiB: any event fits */
}

CKT_FN int ckt_stream_open(struct ckt_stream *s, pid_t pid, pid_t tid, uint64_t start,
                           uint8_t *scratch) {
  struct ckt_line l;  /* "<pid>-<tid>.ckt" */
  ckt_line_init(&l, "");
  ckt_line_u64(&l, (uint64_t)pid);
  ckt_line_u64(&l, (uint64_t)tid);
  ckt_line_str(&l, ".ckt");
  l.buf[l.n] = 0;
  char *name = l.buf + 1;
  name[strcspn(name, " ")] = '-';
  char path[CKT_PATH_MAX];
  if (!ckt_meta_path(path, sizeof path, name)) return 0;

  memset(s, 0, sizeof *s);
  s->scratch = scratch;
  s->fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (s->fd < 0) return 0;
  fchmod(s->fd, 0644);
  struct stat st;
  if (fstat(s->fd, &st) == 0) {
    s->dev = (uint64_t)st.st_dev;
    s->ino = (uint64_t)st.st_ino;
  }
  if (!map_chunk(s, 0)) {
    close(s->fd);
    s->fd = -1;
    return 0;
  }
  uint8_t *h = s->map;
  memcpy(h, "CKTRACE1", 8);
  uint32_t p32 = (uint32_t)pid, t32 = (uint32_t)tid;
  for (int i = 0; i < 4; i++) h[8 + i] = (uint8_t)(p32 >> (8 * i));
  for (int i = 0; i < 4; i++) h[12 + i] = (uint8_t)(t32 >> (8 * i));
  ckt_put_u64le(h + 16, start);
  s->cur = h + CKT_HEADER_SIZE;
  return 1;
}

CKT_FN uint8_t *ckt_stream_rollover(struct ckt_stream *s) {
  if (s->broken) {
    s->cur = s->scratch;
    return s->cur;
  }
  size_t chunk = ckt_cfg.chunk_bytes, over = overlap_bytes();
  uint8_t *old = s->map;
  size_t into = (size_t)(s->cur - (old + chunk));  /* bytes already in the next chunk */
  if (!map_chunk(s, s->map_off + chunk)) {
    munmap(old, chunk + over);
    go_broken(s);
    return s->cur;
  }
  munmap(old, chunk + over);
  s->cur = s->map + into;
  return s->cur;
}

CKT_FN void ckt_stream_put(struct ckt_stream *s, const uint8_t *bytes, size_t n) {
  size_t over = overlap_bytes();
  while (n > 0 && !s->broken) {
    uint8_t *p = ckt_stream_reserve(s);
    if (s->broken) return;
    size_t room = (size_t)(s->limit + over - p);  /* > 0: p < limit */
    size_t k = n < room ? n : room;
    memcpy(p, bytes, k);
    s->cur = p + k;
    bytes += k;
    n -= k;
  }
}

CKT_FN void ckt_stream_close(struct ckt_stream *s, int ended) {
  if (s->fd < 0) return;
  if (!s->broken) {
    uint64_t used = s->map_off + (uint64_t)(s->cur - s->map);
    munmap(s->map, ckt_cfg.chunk_bytes + overlap_bytes());
    if (fd_is_ours(s) && ftruncate(s->fd, (off_t)used) == 0 && ended) {
      uint8_t flags[4] = {1, 0, 0, 0};
      if (pwrite(s->fd, flags, 4, 24) != 4) { /* nothing more to do */ }
    }
  }
  if (fd_is_ours(s)) close(s->fd);
  s->fd = -1;
  s->map = NULL;
  go_broken(s);
}

CKT_FN void ckt_stream_abandon(struct ckt_stream *s) {
  if (s->fd < 0) return;
  if (!s->broken) munmap(s->map, ckt_cfg.chunk_bytes + overlap_bytes());
  if (fd_is_ours(s)) close(s->fd);
  s->fd = -1;
  s->map = NULL;
  go_broken(s);
}
