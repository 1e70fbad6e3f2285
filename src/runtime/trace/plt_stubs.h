/* Library calls: the stubs that PLT slots are pointed at (plt_hooks.c does
 * the pointing). Stub i is 16 bytes of code in one region made at the first
 * use: `endbr64; mov $i, %r11d; jmp ckt_plt_entry` (through a `jmp *` at the
 * region's start), so a call through a hooked slot enters the runtime with
 * the slot's number and the caller's return address where a call put it.
 * The region is written once, before it becomes executable, and never
 * again: a thread may be in any stub at any time.
 *
 * A stub's address is the called function's identity in the trace (one per
 * slot: the name the caller asked for, as uftrace names library calls, not
 * the implementation an IFUNC chose); `plt <stub> <target> <name>` lines in
 * the .meta name it (docs/trace-format.md). Stubs are never reused. */
#ifndef CKT_PLT_STUBS_H
#define CKT_PLT_STUBS_H

#include "ckt_base.h"

enum {
  CKT_PLT_MAX = 1 << 16,      /* slots hooked in a process, at most */
  CKT_PLT_STUB = 16,          /* bytes per stub */
  CKT_PLT_NAME_MAX = 1024,    /* longer names are not hooked */
};
#define CKT_PLT_NONE UINT32_MAX

struct ckt_plt_slot {
  uintptr_t target;  /* where the slot pointed: the function called */
  const char *name;  /* in the stubs' own name pool */
};

extern struct ckt_plt_slot *ckt_plt_slots;
extern uintptr_t ckt_plt_lo, ckt_plt_hi; /* the stubs' code: [lo, hi); 0 before the first */

CKT_INLINE int ckt_plt_is_stub(uintptr_t a) { return a >= ckt_plt_lo && a < ckt_plt_hi; }
CKT_INLINE uintptr_t ckt_plt_stub_address(uint32_t i) { return ckt_plt_lo + CKT_PLT_STUB * (uintptr_t)(i + 1); }

/* Makes the region (cold, once); `entry` is where every stub jumps. 0 when
 * there is no memory for it. */
CKT_FN int ckt_plt_stubs_init(uintptr_t entry);
/* A new stub for a slot that pointed at `target` under `name` (copied);
 * CKT_PLT_NONE when the region is full. Its `plt` line is written when the
 * .meta is open (at once, or by ckt_plt_meta_open). */
CKT_FN uint32_t ckt_plt_stub_new(uintptr_t target, const char *name, size_t len);
/* The .meta is open (process start): the `plt` lines so far, and from now
 * on each as its stub is made. */
CKT_FN void ckt_plt_meta_open(void);
/* A forked child's new .meta: every `plt` line again. */
CKT_FN void ckt_plt_meta_rewrite(void);
CKT_FN void ckt_plt_lock(void);
CKT_FN void ckt_plt_unlock(void);

#endif
