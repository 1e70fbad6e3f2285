/* Writing events into the calling thread's stream; the cold ones are in
 * events.c, the hot ones are inline here. */
#ifndef CKT_EVENTS_H
#define CKT_EVENTS_H

#include "clock.h"
#include "encode.h"
#include "thread_state.h"

CKT_INLINE uint64_t ckt_delta(struct ckt_thread *t, uint64_t when) {
  if (CKT_UNLIKELY(when < t->last)) when = t->last;
  uint64_t d = when - t->last;
  t->last = when;
  return d;
}

CKT_INLINE void ckt_write_enter(struct ckt_thread *t, uint64_t when, uint32_t id) {
  uint8_t *p = ckt_stream_reserve(&t->s);
  p = ckt_put_lead(p, CKT_KIND_ENTER, ckt_delta(t, when));
  t->s.cur = ckt_put_varint(p, id);
  t->s.calls++;
}

CKT_INLINE void ckt_write_exit(struct ckt_thread *t, uint64_t when) {
  uint8_t *p = ckt_stream_reserve(&t->s);
  t->s.cur = ckt_put_lead(p, CKT_KIND_EXIT, ckt_delta(t, when));
}

/* The hooks' versions: `now` is already clamped to >= t->last. */
CKT_INLINE void ckt_write_enter_now(struct ckt_thread *t, uint64_t now, uint32_t id) {
  uint8_t *p = ckt_stream_reserve(&t->s);
  p = ckt_put_lead(p, CKT_KIND_ENTER, now - t->last);
  t->last = now;
  t->s.calls++;
  if (CKT_LIKELY(id < 128)) {
    *p++ = (uint8_t)id;
    t->s.cur = p;
  } else {
    t->s.cur = ckt_put_varint(p, id);
  }
}

CKT_INLINE void ckt_write_exit_now(struct ckt_thread *t, uint64_t now) {
  uint8_t *p = ckt_stream_reserve(&t->s);
  t->s.cur = ckt_put_lead(p, CKT_KIND_EXIT, now - t->last);
  t->last = now;
}

CKT_INLINE uint32_t ckt_ft_hash(uintptr_t fn) {
  return (uint32_t)(((uint64_t)fn * 0x9E3779B97F4A7C15ull) >> (64 - CKT_FT_BITS));
}

enum {
  CKT_LOOKUP_ITERATE = 1, /* may call dl_iterate_phdr (not in a forked child's handler) */
  CKT_LOOKUP_DEFINE = 2,  /* write `define` at once for a new function */
};

/* The table entry of fn (id and slot offset, see thread_state.h), adding a
 * new function. CKT_NO_ID when the table is full. */
CKT_FN uint32_t ckt_func_entry_slow(struct ckt_thread *t, uintptr_t fn, uint64_t now, unsigned flags);

CKT_INLINE uint32_t ckt_func_entry(struct ckt_thread *t, uintptr_t fn, uint64_t now, unsigned flags) {
  uint32_t h = ckt_ft_hash(fn);
  if (CKT_LIKELY(t->keys[h] == fn)) return t->ids[h];
  return ckt_func_entry_slow(t, fn, now, flags);
}

/* A library was unloaded (dlclose) while this thread may have had functions
 * of it in its table: they are forgotten, so that their addresses, where
 * another module may now be, get new ids, a new `define` and a fresh look
 * at the load map (whose refresh writes the new module's line) at their
 * next call (unload_hooks.c). */
CKT_FN void ckt_func_forget_gone(struct ckt_thread *t);

/* Remembers the slot offset of fn (already in the table). */
CKT_FN void ckt_func_set_offset(struct ckt_thread *t, uintptr_t fn, uint32_t off);
/* `define` of id unless already in the stream. */
CKT_FN void ckt_define(struct ckt_thread *t, uint32_t id, uintptr_t fn, uint64_t when);

/* `lost` with the count dropped so far (not while enters are held, nor
 * into a stopped stream: its close writes the count). */
CKT_FN void ckt_write_lost(struct ckt_thread *t, uint64_t now);
CKT_FN void ckt_write_end(struct ckt_thread *t, uint64_t now);
/* `stack`: defines and lists the written open frames (forked child). */
CKT_FN void ckt_write_stack(struct ckt_thread *t, uint64_t now);
/* Min time: writes the enter of the frame at index d (a `define` first if
 * needed) as a held one. */
CKT_FN void ckt_write_held_enter(struct ckt_thread *t, uint32_t d, uint32_t id, uint64_t now);
/* Min time: the held enters are kept for good, outermost first. */
CKT_FN void ckt_keep_held(struct ckt_thread *t);
/* Min time: takes back the held enter of the top frame (index d); 0 when it
 * cannot be (a chunk was rolled over since, or the stream stopped): then it
 * is kept. */
CKT_FN int ckt_take_back(struct ckt_thread *t, uint32_t d);

#endif
