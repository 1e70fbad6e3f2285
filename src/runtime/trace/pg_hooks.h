/* The C halves of the entry hooks that replace a return address (pg_hooks.c):
 * -pg's mcount and __fentry__, patched entries, and library calls through a
 * hooked PLT slot (plt_hooks.c). */
#ifndef CKT_PG_HOOKS_H
#define CKT_PG_HOOKS_H

#include "ckt_base.h"

/* An enter at `slot` (where the caller's return address is) of the function
 * that `self` names (for CKT_HOOK_PLT: the function's identity itself);
 * hooks the return when the call is followed. Not 0: another implementation
 * to jump to instead (glibc's mcount, when the process does not trace). */
CKT_FN uintptr_t ckt_pg_enter(uintptr_t *slot, uintptr_t self, unsigned kind) __attribute__((visibility("hidden")));
/* The exit trampoline's half: records the exit of the frame at `slot`;
 * the original return address. */
CKT_FN uintptr_t ckt_pg_exit(uintptr_t slot) __attribute__((visibility("hidden")));

#endif
