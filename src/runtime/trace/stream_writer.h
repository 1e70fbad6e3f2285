/* IMAGE-<tid>.ckt: a thread's event stream in a file mapped MAP_SHARED one
 * chunk at a time, so a crash loses at most the event being written. Space
 * is reserved (fallocate) before a chunk is mapped; when the file cannot
 * grow (RLIMIT_FSIZE, a full disk) the stream stops: later events are
 * counted, not written, and the count goes into a final `lost` event. */
#ifndef CKT_STREAM_WRITER_H
#define CKT_STREAM_WRITER_H

#include <sys/types.h>

#include "ckt_base.h"

/* Each chunk is mapped with one page more than the chunk (the start of the
 * next chunk, same file pages): while cur < limit at least that page is
 * writable, so the hot path checks once per event and never splits one. */
struct ckt_stream {
  uint8_t *cur;     /* next byte to write */
  uint8_t *limit;   /* end of the current chunk: roll over when cur >= limit */
  uint64_t events;  /* events reserved (one ckt_stream_reserve each) */
  uint64_t calls;   /* enter events among them */
  uint64_t lost;    /* the sum of the `lost` events written */
  uint8_t *map;     /* the current mapping (chunk + overlap page) */
  uint64_t map_off; /* its file offset */
  uint8_t *scratch; /* where events go once the file cannot grow (2 pages) */
  int fd;
  int broken;       /* the file could not grow: events are counted in `dropped` */
  uint8_t *tail;    /* broken: where the written data ends (room for a `lost` event) */
  uint64_t dropped; /* broken: events not written */
  uint64_t kept_events, kept_calls;  /* broken: the counts of the written events */
  const uint64_t *last; /* the thread's counter of its last event: the time of a `sync` */
  uint64_t dev, ino; /* of fd: a program that closes every descriptor may
                        reuse its number for a file of its own */
  pid_t tid;         /* the file's name, to open it again (ckt_file_reopen) */
  unsigned seq;
};

/* Creates the file (a new name, see trace_contract.h), writes the header; 0
 * on failure (nothing left open). `last`: the thread's counter (read when a
 * chunk starts, for its `sync`). */
CKT_FN int ckt_stream_open(struct ckt_stream *s, pid_t tid, uint64_t start, uint8_t *scratch,
                           const uint64_t *last);
/* Maps the next chunk at an event boundary and writes its `sync` (the
 * restart point of a parallel reader); returns the new cur. */
CKT_FN uint8_t *ckt_stream_rollover(struct ckt_stream *s);
/* Appends n bytes of any length (cold events such as `stack`). */
CKT_FN void ckt_stream_put(struct ckt_stream *s, const uint8_t *bytes, size_t n);
/* Makes room for one event of at most CKT_MAX_EVENT bytes; returns cur. */
CKT_INLINE uint8_t *ckt_stream_reserve(struct ckt_stream *s) {
  uint8_t *p = s->cur;
  if (CKT_UNLIKELY(p >= s->limit)) p = ckt_stream_rollover(s);
  s->events++;
  return p;
}
/* Unmaps, writes the `lost` (with `lost` more dropped events) and, when
 * `ended`, the `end` event of a stopped stream, cuts the file to the written size, fills in the header's
 * counts and, when `ended`, sets the "ended" flag (last); closes. */
CKT_FN void ckt_stream_close(struct ckt_stream *s, int ended, uint64_t lost);
/* Forgets the stream without touching its file (a forked child's copy). */
CKT_FN void ckt_stream_abandon(struct ckt_stream *s);

#endif
