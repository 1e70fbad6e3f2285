/* Special events (define, lost, stack, end) and the held enters of min time. */
#include "events.h"

#include "modules.h"
#include "plt_stubs.h"

CKT_FN void ckt_func_set_offset(struct ckt_thread *t, uintptr_t fn, uint32_t off) {
  uint32_t h = ckt_ft_hash(fn);
  while (t->keys[h] != 0) {
    if (t->keys[h] == fn) {
      t->ids[h] = CKT_ID(t->ids[h]) | off << 16;
      return;
    }
    h = (h + 1) & (CKT_FT_SIZE - 1);
  }
}

CKT_FN void ckt_define(struct ckt_thread *t, uint32_t id, uintptr_t fn, uint64_t when) {
  if (t->defined[id >> 3] & (1u << (id & 7))) return;
  t->defined[id >> 3] |= (uint8_t)(1u << (id & 7));
  uint8_t *p = ckt_stream_reserve(&t->s);
  p = ckt_put_lead(p, CKT_KIND_SPECIAL, ckt_delta(t, when));
  p = ckt_put_varint(p, CKT_SPECIAL_DEFINE);
  p = ckt_put_varint(p, id);
  t->s.cur = ckt_put_u64le(p, fn);
}

CKT_FN uint32_t ckt_func_entry_slow(struct ckt_thread *t, uintptr_t fn, uint64_t now, unsigned flags) {
  uint32_t h = ckt_ft_hash(fn);
  while (t->keys[h] != 0) {
    if (t->keys[h] == fn) return t->ids[h];
    h = (h + 1) & (CKT_FT_SIZE - 1);
  }
  /* Ids start at 1: an enter of id 0 would end in a zero byte, which a
   * reader cannot tell from the unwritten tail of a running program. */
  if (t->nids >= CKT_MAX_IDS - 1) return CKT_NO_ID;
  /* A library call's stub is in no module: its `plt` line names it. */
  if (!ckt_plt_is_stub(fn)) ckt_modules_note(fn, now, flags & CKT_LOOKUP_ITERATE);
  uint32_t id = ++t->nids;
  t->ids[h] = id | CKT_OFF_NONE << 16;
  t->keys[h] = fn;
  if (flags & CKT_LOOKUP_DEFINE) ckt_define(t, id, fn, now);
  return t->ids[h];
}

#define GONE_BATCH 16

CKT_FN void ckt_func_forget_gone(struct ckt_thread *t) {
  /* Cleared first: a dlclose listing more after our look sets it again. */
  __atomic_fetch_and(&t->slow, (uint8_t)~CKT_SLOW_UNLOADED, __ATOMIC_RELAXED);
  uint32_t end = ckt_modules_gone_count();
  while (t->gone_seen != end) {
    uint64_t lo[GONE_BATCH], hi[GONE_BATCH];
    uint32_t n = 0;
    int all = 0;
    for (; t->gone_seen != end && n < GONE_BATCH; t->gone_seen++, n++)
      if (!ckt_modules_gone_range(t->gone_seen, &lo[n], &hi[n])) all = 1;  /* fell behind the list */
    /* Tombstones, not zeros: the probe sequences through them stay whole. */
    for (uint32_t h = 0; h < CKT_FT_SIZE; h++) {
      uintptr_t k = t->keys[h];
      if (k == 0 || k == CKT_KEY_GONE) continue;
      int gone = all;
      for (uint32_t i = 0; i < n && !gone; i++) gone = k >= lo[i] && k < hi[i];
      if (gone) t->keys[h] = CKT_KEY_GONE;
    }
  }
}

CKT_FN void ckt_write_lost(struct ckt_thread *t, uint64_t now) {
  uint32_t n = __atomic_load_n(&t->lost, __ATOMIC_RELAXED);
  if (n == 0 || t->pend_lo != CKT_NONE || t->s.broken) return;
  uint8_t *p = ckt_stream_reserve(&t->s);
  p = ckt_put_lead(p, CKT_KIND_SPECIAL, ckt_delta(t, now));
  p = ckt_put_varint(p, CKT_SPECIAL_LOST);
  t->s.cur = ckt_put_varint(p, n);
  t->s.lost += n;
  __atomic_fetch_sub(&t->lost, n, __ATOMIC_RELAXED);
}

CKT_FN void ckt_write_end(struct ckt_thread *t, uint64_t now) {
  if (t->s.broken) return;  /* a stopped stream gets its end from its close */
  uint8_t *p = ckt_stream_reserve(&t->s);
  p = ckt_put_lead(p, CKT_KIND_SPECIAL, ckt_delta(t, now));
  t->s.cur = ckt_put_varint(p, CKT_SPECIAL_END);
}

CKT_FN void ckt_write_stack(struct ckt_thread *t, uint64_t now) {
  const unsigned flags = CKT_LOOKUP_DEFINE;  /* no dl_iterate_phdr in the child's handler */
  uint32_t n = 0;
  for (uint32_t i = 0; i < t->depth; i++) {
    struct ckt_frame *f = &t->stack[i];
    if (!(f->slot & CKT_WRITTEN)) continue;
    if (ckt_func_entry_slow(t, f->fn, now, flags) == CKT_NO_ID) {
      f->slot &= ~CKT_WRITTEN;  /* cannot be named: its exit is not written either */
      continue;
    }
    n++;
  }
  uint8_t buf[256], *p = buf;
  p = ckt_put_lead(p, CKT_KIND_SPECIAL, ckt_delta(t, now));
  p = ckt_put_varint(p, CKT_SPECIAL_STACK);
  p = ckt_put_varint(p, n);
  for (uint32_t i = 0; i < t->depth; i++) {
    struct ckt_frame *f = &t->stack[i];
    if (!(f->slot & CKT_WRITTEN)) continue;
    p = ckt_put_varint(p, CKT_ID(ckt_func_entry_slow(t, f->fn, now, flags)));
    if (p - buf > (long)sizeof buf - 16) {
      ckt_stream_put(&t->s, buf, (size_t)(p - buf));
      p = buf;
    }
  }
  ckt_stream_put(&t->s, buf, (size_t)(p - buf));
}

CKT_FN static uint64_t stream_pos(const struct ckt_stream *s) {
  return s->map_off + (uint64_t)(s->cur - s->map);
}

CKT_FN void ckt_write_held_enter(struct ckt_thread *t, uint32_t d, uint32_t id, uint64_t now) {
  struct ckt_pend *p = &t->pend[d];
  p->time = now;
  p->id = id;
  p->last = t->last;
  p->pos = t->s.broken ? 0 : stream_pos(&t->s);
  p->defined = !(t->defined[id >> 3] & (1u << (id & 7)));
  ckt_define(t, id, t->stack[d].fn, now);
  ckt_write_enter(t, now, id);
}

CKT_FN void ckt_keep_held(struct ckt_thread *t) {
  if (t->pend_lo == CKT_NONE) return;
  for (uint32_t i = t->pend_lo; i < t->depth; i++) {
    struct ckt_frame *f = &t->stack[i];
    if (f->slot & CKT_PENDING) f->slot = (f->slot & ~CKT_PENDING) | CKT_WRITTEN;
  }
  t->pend_lo = CKT_NONE;
}

CKT_FN int ckt_take_back(struct ckt_thread *t, uint32_t d) {
  const struct ckt_pend *p = &t->pend[d];
  struct ckt_stream *s = &t->s;
  /* Only bytes still in the current mapping (the overlap page belongs to it
   * as the start of the next chunk). */
  if (s->broken || p->pos < s->map_off || p->pos > stream_pos(s)) return 0;
  uint8_t *at = s->map + (p->pos - s->map_off);
  for (uint8_t *b = at; b < s->cur; b++) *b = 0;
  s->cur = at;
  s->events -= 1u + p->defined;
  s->calls -= 1;
  t->last = p->last;
  if (p->defined) t->defined[p->id >> 3] &= (uint8_t)~(1u << (p->id & 7));
  return 1;
}
