/* Exits of -pg functions. mcount and __fentry__ are told of entries only:
 * the entry hook replaces the function's return address (in its caller's
 * frame: the frame's slot) by the address of the exit trampoline
 * (pg_entry.S) and keeps the original in the shadow frame (`site`, flag
 * CKT_HOOKED); the function's `ret` lands in the trampoline, which records
 * the exit and jumps to the original address.
 *
 * What does not return through the slots must not see the trampoline: an
 * unwinder (C++ exceptions, pthread_exit) gets the original addresses back
 * first and the frames that survive a catch are hooked again; a thread's
 * end puts them back too. Frames below the stack pointer are never
 * written: their memory may belong to live frames by now. */
#ifndef CKT_RETURN_HOOK_H
#define CKT_RETURN_HOOK_H

#include "shadow_stack.h"

/* pg_entry.S */
extern char ckt_pg_return[] __attribute__((visibility("hidden")));
#define CKT_TRAMPOLINE ((uintptr_t)ckt_pg_return)

/* The original return address of the hooked frame whose slot is `slot`
 * (open, or an orphan); 0 when none. */
CKT_FN uintptr_t ckt_hooked_site(const struct ckt_thread *t, uintptr_t slot);
/* Remembers a hooked frame closed while maybe still live. */
CKT_FN void ckt_orphan_add(struct ckt_thread *t, uintptr_t slot, uintptr_t site);
/* The original return address of the orphan at `slot`, forgotten now (it
 * returned); 0 when none. */
CKT_FN uintptr_t ckt_orphan_take(struct ckt_thread *t, uintptr_t slot);
/* Puts the original return address back into the slots of the hooked
 * frames above `sp` on the thread's stack (those still holding the
 * trampoline). */
CKT_FN void ckt_unhook_live(struct ckt_thread *t, uintptr_t sp);
/* After a catch whose handler runs with stack pointer `sp`: the open frames
 * below it are gone (their exits are written at `now`), those above it get
 * the trampoline again. */
CKT_FN void ckt_rehook_live(struct ckt_thread *t, uintptr_t sp, uint64_t now);

#endif
