/* The shadow stack of open calls and how it stays exact when exit hooks
 * never come (longjmp, exceptions unwound without exit hooks by clang):
 *  - on enter, frames whose return-address slot is at or below the new
 *    call's slot are gone (their stack was reused) and get their exits;
 *  - on exit, frames below the exiting function's stack pointer are gone;
 *    then, if the top is not the function, it is looked up further down and
 *    the frames above it are closed; if absent, the exit is counted lost.
 * So the written stream is always perfectly nested. */
#ifndef CKT_SHADOW_STACK_H
#define CKT_SHADOW_STACK_H

#include "thread_state.h"

/* How far above the hook's CFA the return address (call_site) is looked
 * for, in words; a function with a larger frame gets the hook's CFA, a
 * lower bound of its slot, which is still safe. */
#define CKT_SLOT_SCAN 512
/* Slots are compared only within the thread's own stack: a call on another
 * stack (sigaltstack handler, coroutine) proves no frame gone. When the
 * bounds are unknown, a slot this far above the top frame's is taken as
 * another stack. */
#define CKT_POP_RANGE ((uintptr_t)256 << 20)

/* Where a function's own enter hook call can be, at most, from its start
 * (after the prologue). */
#define CKT_PROLOGUE_MAX 256

/* The new call fn (enter hook called from ra) has the slot and return
 * address of the frames of host: a copy of fn inlined in host's activation,
 * or a real call that reuses the slot of dead frames (a call through a
 * pointer from the same site after a longjmp or exception). A real call's
 * hook is called right after fn's prologue; an inlined copy's is in host's
 * code (and fn == host is inlined recursion). */
CKT_INLINE int ckt_real_call(uintptr_t fn, uintptr_t ra, uintptr_t host) {
  return fn != host && ra - fn < CKT_PROLOGUE_MAX && !(fn < host && host <= ra);
}

CKT_INLINE int ckt_same_stack(const struct ckt_thread *t, uintptr_t lower, uintptr_t upper) {
  return lower >= t->stack_lo && upper < t->stack_hi && upper - lower < CKT_POP_RANGE;
}

/* The address of the stack word holding the caller's return address. */
CKT_INLINE uintptr_t ckt_find_slot(const uintptr_t *cfa, uintptr_t site) {
  for (unsigned i = 0; i < CKT_SLOT_SCAN; i++)
    if (cfa[i] == site) return (uintptr_t)(cfa + i);
  return (uintptr_t)cfa;
}

/* The slot for a new call from site when the top frame has the same
 * return address and its slot lies between the call's CFA and the slot
 * found for it, i.e. inside the new call's own frame: the top frame is
 * either dead (its stack reused) or the same activation, whose enter took a
 * stale copy of the return address left in its uninitialized locals (by
 * an earlier call from that site with a shallower frame, e.g. a hook's
 * spill: a function that realigns its stack, and rsp,-64, has its slot at a
 * distance from the CFA that changes with the incoming alignment, so its
 * remembered offset misses and the scan finds the copy first). Its inlined
 * copies, whose remembered offsets hit the real slot, must share the host's
 * slot, or the first of them closes the host's frame and its exit is lost.
 * Taking the top's slot lets the return-address rules below decide (the
 * same hook call site or a real call: a dead frame, closed; else a copy
 * inlined in it); a fresh call on a dead frame's slot is still a slot of
 * its own frame, above its CFA. */
CKT_INLINE uintptr_t ckt_host_slot(const struct ckt_frame *top, uintptr_t slot, uintptr_t site,
                                   const uintptr_t *cfa) {
  uintptr_t ts = CKT_SLOT(top);
  return ts < slot && ts >= (uintptr_t)cfa && top->site == site ? ts : slot;
}

/* Scans for the slot and remembers its offset for fn. */
CKT_FN uintptr_t ckt_slot_rescan(struct ckt_thread *t, uintptr_t fn, const uintptr_t *cfa, uintptr_t site);

/* The slot from fn's remembered offset when the return address is there. */
CKT_INLINE uintptr_t ckt_slot_of(struct ckt_thread *t, uintptr_t fn, uint32_t entry, const uintptr_t *cfa,
                                 uintptr_t site) {
  uint32_t off = CKT_OFF(entry);
  if (CKT_LIKELY(off < CKT_SLOT_SCAN) && CKT_LIKELY(cfa[off] == site)) return (uintptr_t)(cfa + off);
  if (off == CKT_OFF_FAR) return (uintptr_t)cfa;
  return ckt_slot_rescan(t, fn, cfa, site);
}

CKT_FN void ckt_count_lost(struct ckt_thread *t);
/* Closes the top frame (exit event at `now` when its enter was written). */
CKT_FN void ckt_pop_one(struct ckt_thread *t, uint64_t now);
/* Enter of a call with this slot/site/ra: closes the frames it proves gone.
 * Returns the new depth. */
CKT_FN uint32_t ckt_pop_dead(struct ckt_thread *t, uintptr_t fn, uintptr_t slot, uintptr_t site,
                             uintptr_t ra, uint64_t now);
/* Enter when not on the fast path (min time, lost to report, overflow,
 * calibration due): all of it. */
CKT_FN void ckt_enter_slow(struct ckt_thread *t, uintptr_t fn, uintptr_t site, const uintptr_t *cfa,
                           uintptr_t ra, uint64_t now);
/* The push part of an enter (dead frames already closed). */
CKT_FN void ckt_enter_push(struct ckt_thread *t, uintptr_t fn, uintptr_t site, uintptr_t slot,
                           uintptr_t ra, uint64_t now);
/* Exit off the fast path (mismatch, dead frames, min time, lost, overflow). */
/* live: the lowest slot a live frame can have (frames below are gone). */
CKT_FN void ckt_exit_slow(struct ckt_thread *t, uintptr_t fn, uintptr_t live, uint64_t now);
/* Closes every open frame (thread or process end). */
CKT_FN void ckt_close_all(struct ckt_thread *t, uint64_t now);

#endif
