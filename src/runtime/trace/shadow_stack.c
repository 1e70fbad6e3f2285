/* Shadow stack maintenance off the fast path. */
#include "shadow_stack.h"

#include "events.h"
#include "calib.h"
#include "filters.h"

CKT_FN uintptr_t ckt_slot_rescan(struct ckt_thread *t, uintptr_t fn, const uintptr_t *cfa, uintptr_t site) {
  uintptr_t slot = ckt_find_slot(cfa, site);
  uint32_t off = slot == (uintptr_t)cfa && cfa[0] != site ? CKT_OFF_FAR : (uint32_t)((slot - (uintptr_t)cfa) / sizeof(uintptr_t));
  ckt_func_set_offset(t, fn, off);
  return slot;
}

CKT_FN void ckt_count_lost(struct ckt_thread *t) {
  __atomic_fetch_add(&t->lost, 1, __ATOMIC_RELAXED);
}

CKT_FN void ckt_pop_one(struct ckt_thread *t, uint64_t now) {
  uint32_t d = t->depth - 1;
  struct ckt_frame *f = &t->stack[d];
  if (t->slow & CKT_SLOW_FILTER) ckt_filter_pop(t, d);
  if (f->slot & CKT_PENDING) {
    /* Short, no recorded callee: taken back if it still can be. Else it and
     * its held callers are kept. */
    if (now - t->pend[d].time < t->min_ticks && ckt_take_back(t, d)) {
      t->depth = d;
      if (t->pend_lo >= d) t->pend_lo = CKT_NONE;
      return;
    }
    ckt_keep_held(t);
    t->depth = d;
    ckt_write_exit(t, now);
    return;
  }
  t->depth = d;
  if (f->slot & CKT_WRITTEN) ckt_write_exit(t, now);
}

CKT_FN uint32_t ckt_pop_dead(struct ckt_thread *t, uintptr_t fn, uintptr_t slot, uintptr_t site,
                             uintptr_t ra, uint64_t now) {
  if (t->overflow) return t->depth;
  while (t->depth) {
    const struct ckt_frame *top = &t->stack[t->depth - 1];
    uintptr_t ts = CKT_SLOT(top);
    if (ts > slot || !ckt_same_stack(t, ts, slot)) break;
    if (ts == slot && top->site == site) {
      /* Same slot and return address: the frames of one activation, in which
       * GCC and clang also instrument the inlined copies. A new call from a
       * hook call site already open in it means that frame (and what is
       * above) is gone: a hook call site cannot be open twice in one
       * activation. A real call means the whole activation is gone.
       * Otherwise the new call is a copy inlined in the top frame. */
      uint32_t i = t->depth;
      while (i > 1 && CKT_SLOT(&t->stack[i - 2]) == slot && t->stack[i - 2].site == site &&
             t->stack[i - 1].ra != ra)
        i--;
      if (t->stack[i - 1].ra == ra || ckt_real_call(fn, ra, t->stack[i - 1].fn)) {
        while (t->depth >= i) ckt_pop_one(t, now);
        continue;  /* frames below may be gone too */
      }
      break;
    }
    ckt_pop_one(t, now);
  }
  return t->depth;
}

CKT_FN void ckt_enter_slow(struct ckt_thread *t, uintptr_t fn, uintptr_t site, const uintptr_t *cfa,
                           uintptr_t ra, uint64_t now) {
  if (now >= ckt_next_calib) ckt_calib_tick(now);
  uintptr_t slot = ckt_find_slot(cfa, site);
  if (t->depth && !t->overflow) slot = ckt_host_slot(&t->stack[t->depth - 1], slot, site, cfa);
  ckt_pop_dead(t, fn, slot, site, ra, now);
  ckt_enter_push(t, fn, site, slot, ra, now);
}

CKT_FN void ckt_enter_push(struct ckt_thread *t, uintptr_t fn, uintptr_t site, uintptr_t slot,
                           uintptr_t ra, uint64_t now) {
  if (CKT_UNLIKELY(t->slow & CKT_SLOW_UNLOADED)) ckt_func_forget_gone(t);
  if (t->overflow) {
    t->overflow++;
    ckt_count_lost(t);
    return;
  }
  ckt_write_lost(t, now);
  uint32_t d = t->depth;
  if (d >= CKT_STACK_CAP) {
    t->overflow = 1;
    __atomic_fetch_or(&t->slow, CKT_SLOW_OVERFLOW, __ATOMIC_RELAXED);
    ckt_count_lost(t);
    return;
  }
  struct ckt_frame *f = &t->stack[d];
  f->fn = fn;
  f->site = site;
  f->ra = ra;
  f->slot = slot;
  t->depth = d + 1;
  if (t->slow & CKT_SLOW_FILTER) {
    uint32_t e = ckt_func_entry(t, fn, now, CKT_LOOKUP_ITERATE);
    if (!ckt_filter_push(t, d, fn, e)) return;
  } else if (d >= t->max_depth) {
    return;
  }
  if (t->min_ticks) {  /* held until it proves long or has a recorded callee */
    uint32_t e = ckt_func_entry(t, fn, now, CKT_LOOKUP_ITERATE);
    if (e == CKT_NO_ID) {
      ckt_count_lost(t);
      return;
    }
    f->slot = slot | CKT_PENDING;
    if (t->pend_lo == CKT_NONE) t->pend_lo = d;
    ckt_write_held_enter(t, d, CKT_ID(e), now);
    return;
  }
  uint32_t e = ckt_func_entry(t, fn, now, CKT_LOOKUP_ITERATE | CKT_LOOKUP_DEFINE);
  if (e == CKT_NO_ID) {
    ckt_count_lost(t);
    ckt_write_lost(t, now);
    return;
  }
  f->slot = slot | CKT_WRITTEN;
  ckt_define(t, CKT_ID(e), fn, now);  /* a filter's lookup above added it undefined */
  ckt_write_enter(t, now, CKT_ID(e));
}

CKT_FN void ckt_exit_slow(struct ckt_thread *t, uintptr_t fn, uintptr_t live, uint64_t now) {
  if (t->overflow) {
    if (--t->overflow == 0) __atomic_fetch_and(&t->slow, (uint8_t)~CKT_SLOW_OVERFLOW, __ATOMIC_RELAXED);
    ckt_count_lost(t);
    return;
  }
  /* Frames below the exiting function's stack pointer are gone. */
  while (t->depth) {
    uintptr_t ts = CKT_SLOT(&t->stack[t->depth - 1]);
    if (ts >= live || !ckt_same_stack(t, ts, live)) break;
    ckt_pop_one(t, now);
  }
  uint32_t i = t->depth;
  while (i && t->stack[i - 1].fn != fn) i--;
  if (i == 0) {
    ckt_count_lost(t);  /* an exit without its enter */
  } else {
    while (t->depth >= i) ckt_pop_one(t, now);
  }
  ckt_write_lost(t, now);
}

CKT_FN void ckt_close_all(struct ckt_thread *t, uint64_t now) {
  t->overflow = 0;
  while (t->depth) ckt_pop_one(t, now);
  ckt_write_lost(t, now);
}
