/* The hot path: __cyg_profile_func_enter/exit, called around every function
 * compiled with -finstrument-functions. Per-thread state only: no lock, no
 * allocation, no system call, no symbol lookup (those happen on the cold
 * paths: a thread's first event, a function's first call in a thread, a
 * chunk boundary, a calibration period). */
#include "clock.h"
#include "events.h"
#include "process.h"
#include "return_hook.h"
#include "shadow_stack.h"

CKT_API void __cyg_profile_func_enter(void *this_fn, void *call_site);
CKT_API void __cyg_profile_func_exit(void *this_fn, void *call_site);

/* Tail-called by a hooked library call (its return address is the
 * trampoline): a library's `jmp` to a function of the program, bound to the
 * executable's copy (libstdc++'s std::string constructor to an instrumented
 * _M_construct<const char*>). This enter closes the library call's frame
 * (its activation is gone: ckt_pop_dead), but the function returns through
 * its slot: the original address is kept as an orphan for that return, once
 * (the function's inlined copies come here too, after the frame is closed). */
CKT_COLD static void keep_tail_called_slot(struct ckt_thread *t, const uintptr_t *cfa) {
  uintptr_t slot = ckt_find_slot(cfa, CKT_TRAMPOLINE);
  for (uint32_t i = t->depth; i-- > 0;) {
    const struct ckt_frame *f = &t->stack[i];
    if (CKT_SLOT(f) == slot && (f->slot & CKT_HOOKED)) {
      ckt_orphan_add(t, slot, f->site);
      return;
    }
  }
}

CKT_API void __cyg_profile_func_enter(void *this_fn, void *call_site) {
  const uintptr_t *cfa = (const uintptr_t *)__builtin_dwarf_cfa();
  struct ckt_thread *t = ckt_tls;
  if (CKT_UNLIKELY(t == NULL)) t = ckt_thread_attach();
  if (CKT_UNLIKELY(t->busy)) {  /* a signal handler inside a hook, or off */
    if (t->real) ckt_count_lost(t);
    return;
  }
  t->busy = 1;
  CKT_BARRIER();
  uint64_t now = ckt_now();
  if (CKT_UNLIKELY(now < t->last)) now = t->last;
  uintptr_t fn = (uintptr_t)this_fn, site = (uintptr_t)call_site;
  uintptr_t ra = (uintptr_t)__builtin_return_address(0);
  if (CKT_UNLIKELY(site == CKT_TRAMPOLINE)) keep_tail_called_slot(t, cfa);
  if (CKT_UNLIKELY((t->slow | t->lost) != 0 || now >= ckt_next_calib)) {
    ckt_enter_slow(t, fn, site, cfa, ra, now);
    goto out;
  }
  uint32_t entry = ckt_func_entry(t, fn, now, CKT_LOOKUP_ITERATE | CKT_LOOKUP_DEFINE);
  if (CKT_UNLIKELY(entry == CKT_NO_ID)) {  /* id table full: counted there */
    ckt_enter_slow(t, fn, site, cfa, ra, now);
    goto out;
  }
  uintptr_t slot = ckt_slot_of(t, fn, entry, cfa, site);
  uint32_t d = t->depth;
  if (CKT_LIKELY(d != 0)) {
    uintptr_t ts = CKT_SLOT(&t->stack[d - 1]);
    /* At or above the new call's slot: gone, or (same slot and return
     * address) maybe a copy inlined in it (see ckt_pop_dead). */
    if (CKT_UNLIKELY(ts <= slot)) {
      const struct ckt_frame *fr = &t->stack[d - 1];
      slot = ckt_host_slot(fr, slot, site, cfa);
      if (ts == slot && fr->site == site) {
        while (fr->ra != ra) {
          if (fr == t->stack || CKT_SLOT(fr - 1) != slot || fr[-1].site != site) {
            if (!ckt_real_call(fn, ra, fr->fn)) goto inlined;
            break;
          }
          fr--;
        }
      }
      d = ckt_pop_dead(t, fn, slot, site, ra, now);
    }
  inlined:;
  }
  if (CKT_UNLIKELY(d >= t->fast_depth)) {  /* beyond max depth or the stack */
    ckt_enter_push(t, fn, site, slot, ra, now);
    goto out;
  }
  struct ckt_frame *f = &t->stack[d];
  f->fn = fn;
  f->site = site;
  f->ra = ra;
  f->slot = slot | CKT_WRITTEN;
  t->depth = d + 1;
  ckt_write_enter_now(t, now, CKT_ID(entry));
out:
  CKT_BARRIER();
  t->busy = 0;
}

CKT_API void __cyg_profile_func_exit(void *this_fn, void *call_site) {
  const uintptr_t *cfa = (const uintptr_t *)__builtin_dwarf_cfa();
  struct ckt_thread *t = ckt_tls;
  if (CKT_UNLIKELY(t == NULL)) t = ckt_thread_attach();
  if (CKT_UNLIKELY(t->busy)) {
    if (t->real) ckt_count_lost(t);
    return;
  }
  t->busy = 1;
  CKT_BARRIER();
  uint64_t now = ckt_now();
  if (CKT_UNLIKELY(now < t->last)) now = t->last;
  /* The lowest slot a live frame can have: the function's own. A tail-called
   * exit hook (returning straight to the function's caller) has the
   * function's CFA, one word above its slot. */
  uintptr_t live = (uintptr_t)cfa;
  if ((uintptr_t)__builtin_return_address(0) == (uintptr_t)call_site) live -= sizeof(uintptr_t);
  uint32_t d = t->depth;
  const struct ckt_frame *f = &t->stack[d - 1];
  if (CKT_LIKELY(d != 0 && f->fn == (uintptr_t)this_fn && CKT_SLOT(f) >= live &&
                 (t->slow | t->lost) == 0)) {
    t->depth = d - 1;
    if (CKT_LIKELY(f->slot & CKT_WRITTEN)) ckt_write_exit_now(t, now);
  } else {
    ckt_exit_slow(t, (uintptr_t)this_fn, live, now);
  }
  CKT_BARRIER();
  t->busy = 0;
}
