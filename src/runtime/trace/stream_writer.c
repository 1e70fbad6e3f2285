/* Chunked, memory-mapped thread stream files. */
#include "stream_writer.h"

#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <fcntl.h>
#include <unistd.h>

#include "config.h"
#include "encode.h"
#include "process_meta.h"
#include "trace_contract.h"
#include "trace_files.h"

CKT_FN static size_t overlap_bytes(void) {
  long page = sysconf(_SC_PAGESIZE);
  return page > 4096 ? (size_t)page : 4096;
}

/* IMAGE-<tid>: the stem of the stream's file name. */
CKT_FN static void stream_stem(struct ckt_line *stem, pid_t tid) {
  ckt_line_init(stem, ckt_image);
  ckt_line_char(stem, CKT_THREAD_SEPARATOR);
  ckt_line_uint(stem, (uint64_t)tid);
  stem->buf[stem->n] = 0;
}

/* fd is ours, or the program closed it (daemons close every descriptor
 * they did not open) and the file, opened again, is still ours: the stream
 * goes on. The old number is left alone: it may be the program's now. */
CKT_FN static int fd_usable(struct ckt_stream *s) {
  if (ckt_file_is(s->fd, s->dev, s->ino)) return 1;
  struct ckt_line stem;
  stream_stem(&stem, s->tid);
  int fd = ckt_file_reopen(stem.buf, CKT_STREAM_SUFFIX, s->seq, O_RDWR, s->dev, s->ino);
  if (fd < 0) return 0;
  s->fd = fd;
  return 1;
}

CKT_FN static int map_chunk(struct ckt_stream *s, uint64_t off) {
  size_t chunk = ckt_cfg.chunk_bytes, over = overlap_bytes();
  if (!fd_usable(s)) return 0;
  /* Reserved, not just sized: a store into a hole the disk cannot fill is
   * SIGBUS, growing past RLIMIT_FSIZE is SIGXFSZ. */
  if (!ckt_file_reserve(s->fd, off, chunk + over)) return 0;
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

/* From now on every reserve lands here (limit == scratch): it counts the
 * event as dropped and hands out the scratch page, which any event fits. */
CKT_FN static uint8_t *drop(struct ckt_stream *s) {
  s->dropped++;
  s->cur = s->limit = s->scratch;
  return s->cur;
}

CKT_FN static void stop(struct ckt_stream *s) {
  s->broken = 1;
  s->tail = s->cur;  /* in the overlap page, which stays mapped: room for `lost` */
  s->kept_events = s->events;
  s->kept_calls = s->calls;
}

CKT_FN int ckt_stream_open(struct ckt_stream *s, pid_t tid, uint64_t start, uint8_t *scratch,
                           const uint64_t *last) {
  struct ckt_line stem;
  stream_stem(&stem, tid);

  memset(s, 0, sizeof *s);
  s->scratch = scratch;
  s->last = last;
  s->tid = tid;
  s->fd = ckt_file_create(stem.buf, CKT_STREAM_SUFFIX, O_RDWR, &s->seq);
  if (s->fd < 0) return 0;
  struct stat st;
  if (fstat(s->fd, &st) == 0) {
    s->dev = (uint64_t)st.st_dev;
    s->ino = (uint64_t)st.st_ino;
  }
  if (!map_chunk(s, 0)) {
    /* The empty file stays: a reader skips a stream without a header. */
    close(s->fd);
    s->fd = -1;
    return 0;
  }
  uint8_t *h = s->map;
  memcpy(h + CKT_HDR_MAGIC, CKT_MAGIC, 8);
  uint32_t p32 = (uint32_t)ckt_pid, t32 = (uint32_t)tid;
  for (int i = 0; i < 4; i++) h[CKT_HDR_PID + i] = (uint8_t)(p32 >> (8 * i));
  for (int i = 0; i < 4; i++) h[CKT_HDR_TID + i] = (uint8_t)(t32 >> (8 * i));
  ckt_put_u64le(h + CKT_HDR_START, start);
  uint32_t c32 = ckt_cfg.chunk_bytes;
  for (int i = 0; i < 4; i++) h[CKT_HDR_CHUNK + i] = (uint8_t)(c32 >> (8 * i));
  s->cur = h + CKT_HEADER_SIZE;
  return 1;
}

/* The next chunk mapped; cur past the bytes of the event that crossed into it. */
CKT_FN static uint8_t *next_chunk(struct ckt_stream *s) {
  if (s->broken) return drop(s);
  size_t chunk = ckt_cfg.chunk_bytes, over = overlap_bytes();
  uint8_t *old = s->map;
  size_t into = (size_t)(s->cur - (old + chunk));  /* bytes already in the next chunk */
  if (!map_chunk(s, s->map_off + chunk)) {
    stop(s);
    return drop(s);
  }
  munmap(old, chunk + over);
  s->cur = s->map + into;
  return s->cur;
}

CKT_FN uint8_t *ckt_stream_rollover(struct ckt_stream *s) {
  uint8_t *p = next_chunk(s);
  if (s->broken) return p;
  /* The restart point: the time the next delta starts from and the sync's
   * own offset, by which a reader that looks from the chunk's start knows
   * it found one (the crossing event's bytes come first). Once per chunk,
   * on this slow path: the hot path is unchanged. */
  uint64_t at = s->map_off + (uint64_t)(p - s->map);
  p = ckt_put_lead(p, CKT_KIND_SPECIAL, 0);
  p = ckt_put_varint(p, CKT_SPECIAL_SYNC);
  p = ckt_put_varint(p, *s->last);
  p = ckt_put_varint(p, at);
  s->events++;
  s->cur = p;
  return p;
}

CKT_FN void ckt_stream_put(struct ckt_stream *s, const uint8_t *bytes, size_t n) {
  size_t over = overlap_bytes();
  uint8_t *start = s->cur, *start_map = s->map;
  const int was_broken = s->broken;
  while (n > 0) {
    /* Mid-event: the next chunk gets no `sync` (a reader decodes across). */
    uint8_t *p = s->cur;
    if (p >= s->limit) p = next_chunk(s);
    if (s->broken) {
      /* Stopped inside the event: the file ends before it. */
      if (!was_broken && s->map == start_map) s->tail = start;
      return;
    }
    size_t room = (size_t)(s->limit + over - p);  /* > 0: p < limit */
    size_t k = n < room ? n : room;
    memcpy(p, bytes, k);
    s->cur = p + k;
    bytes += k;
    n -= k;
  }
  s->events++;
}

/* The final `lost` (and `end`) of a stopped stream, at the time of the last
 * written event (delta 0), in the room kept after it. */
CKT_FN static void write_tail(struct ckt_stream *s, uint64_t lost, int ended) {
  uint8_t *p = s->tail;
  if (lost > 0) {
    p = ckt_put_lead(p, CKT_KIND_SPECIAL, 0);
    p = ckt_put_varint(p, CKT_SPECIAL_LOST);
    p = ckt_put_varint(p, lost);
    s->kept_events++;
    s->lost += lost;
  }
  if (ended) {
    p = ckt_put_lead(p, CKT_KIND_SPECIAL, 0);
    p = ckt_put_varint(p, CKT_SPECIAL_END);
    s->kept_events++;
  }
  s->tail = p;
}

CKT_FN static void put_u64_at(int fd, uint64_t v, off_t at) {
  uint8_t b[8];
  ckt_put_u64le(b, v);
  if (pwrite(fd, b, 8, at) != 8) { /* the header keeps its zeros: counts unknown */ }
}

CKT_FN void ckt_stream_close(struct ckt_stream *s, int ended, uint64_t lost) {
  if (s->fd < 0) return;
  uint64_t events = s->events, calls = s->calls;
  if (s->broken) {
    write_tail(s, s->dropped + lost, ended);
    s->cur = s->tail;
    events = s->kept_events;
    calls = s->kept_calls;
  }
  uint64_t used = s->map_off + (uint64_t)(s->cur - s->map);
  munmap(s->map, ckt_cfg.chunk_bytes + overlap_bytes());
  if (fd_usable(s) && ftruncate(s->fd, (off_t)used) == 0) {
    put_u64_at(s->fd, calls, CKT_HDR_CALLS);
    put_u64_at(s->fd, events, CKT_HDR_EVENTS);
    put_u64_at(s->fd, s->lost, CKT_HDR_LOST);
    uint8_t flags[4] = {(uint8_t)(CKT_FLAG_COUNTS | (ended ? CKT_FLAG_ENDED : 0)), 0, 0, 0};
    if (pwrite(s->fd, flags, 4, CKT_HDR_FLAGS) != 4) { /* nothing more to do */ }
  }
  if (ckt_file_is(s->fd, s->dev, s->ino)) close(s->fd);
  s->fd = -1;
  s->map = NULL;
  s->broken = 1;
  s->tail = s->scratch;
  drop(s);
}

CKT_FN void ckt_stream_abandon(struct ckt_stream *s) {
  if (s->fd < 0) return;
  munmap(s->map, ckt_cfg.chunk_bytes + overlap_bytes());
  if (ckt_file_is(s->fd, s->dev, s->ino)) close(s->fd);
  s->fd = -1;
  s->map = NULL;
  s->broken = 1;
  s->tail = s->scratch;
  drop(s);
}
