/* Restoring and replacing the return addresses of -pg frames (cold paths). */
#include "return_hook.h"

#include "events.h"

CKT_FN uintptr_t ckt_hooked_site(const struct ckt_thread *t, uintptr_t slot) {
  for (uint32_t i = t->depth; i-- > 0;) {
    const struct ckt_frame *f = &t->stack[i];
    if (CKT_SLOT(f) == slot && (f->slot & CKT_HOOKED)) return f->site;
  }
  for (uint32_t i = 0; i < CKT_ORPHANS; i++)
    if (t->orphans[i].slot == slot) return t->orphans[i].site;
  return 0;
}

CKT_FN void ckt_orphan_add(struct ckt_thread *t, uintptr_t slot, uintptr_t site) {
  struct ckt_orphan *o = &t->orphans[t->norphans++ % CKT_ORPHANS];
  o->slot = slot;
  o->site = site;
}

CKT_FN uintptr_t ckt_orphan_take(struct ckt_thread *t, uintptr_t slot) {
  for (uint32_t i = 0; i < CKT_ORPHANS; i++) {
    struct ckt_orphan *o = &t->orphans[i];
    if (o->slot == slot) {
      uintptr_t site = o->site;
      o->slot = o->site = 0;
      return site;
    }
  }
  return 0;
}

/* A frame above sp on the thread's own stack: its slot is live memory. */
CKT_FN static int live_above(const struct ckt_thread *t, uintptr_t slot, uintptr_t sp) {
  return slot > sp && slot >= t->stack_lo && slot < t->stack_hi;
}

CKT_FN void ckt_unhook_live(struct ckt_thread *t, uintptr_t sp) {
  for (uint32_t i = 0; i < t->depth; i++) {
    const struct ckt_frame *f = &t->stack[i];
    uintptr_t slot = CKT_SLOT(f);
    if (!(f->slot & CKT_HOOKED) || !live_above(t, slot, sp)) continue;
    uintptr_t *p = (uintptr_t *)slot;
    if (*p == CKT_TRAMPOLINE) *p = f->site;
  }
}

CKT_FN void ckt_rehook_live(struct ckt_thread *t, uintptr_t sp, uint64_t now) {
  while (t->depth) {
    uintptr_t ts = CKT_SLOT(&t->stack[t->depth - 1]);
    if (ts > sp || !ckt_same_stack(t, ts, sp)) break;
    ckt_pop_one(t, now);
  }
  ckt_write_lost(t, now);
  for (uint32_t i = 0; i < t->depth; i++) {
    const struct ckt_frame *f = &t->stack[i];
    uintptr_t slot = CKT_SLOT(f);
    if (!(f->slot & CKT_HOOKED) || !live_above(t, slot, sp)) continue;
    uintptr_t *p = (uintptr_t *)slot;
    if (*p == f->site) *p = CKT_TRAMPOLINE;
  }
}
