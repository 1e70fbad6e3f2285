/* Library calls (CKT_ENV_LIBCALL, set by `covkit trace record` unless
 * --no-libcall): every PLT slot (R_X86_64_JUMP_SLOT) of an instrumented
 * module — one whose code calls __cyg_profile_func_enter, mcount or
 * __fentry__, or that has patched entries — is pointed at a stub of its own
 * (plt_stubs.h), so a call into a shared library (printf, strtod,
 * __ctype_b_loc, a library of the program's own) enters and exits like a
 * -pg function: the caller's self time leaves it out, as uftrace's does.
 *
 * When: at load, before main and the program's constructors (a preloaded
 * library is initialized first), and for libraries loaded later whenever
 * the load map is read again (modules.c: at the first call of one of their
 * instrumented functions, before any of their code calls through a slot).
 * Slots are taken as the dynamic linker bound them: `covkit trace record`
 * sets LD_BIND_NOW, so every slot is bound at load (dlopen too); a slot
 * still lazy (the runtime used by hand) is bound here by its name and
 * version (dlvsym in the global scope).
 *
 * Not hooked: slots of modules that are not instrumented (system libraries'
 * calls among themselves, as uftrace without --nest-libcall), of the
 * runtime itself (linked into the program with --static: its own calls to
 * libc go through the program's slots), slots whose function is in an
 * instrumented module (its own hooks record it: no call is counted twice),
 * the hooks themselves, functions that return twice or switch stacks
 * (setjmp, vfork, getcontext, clone...), and those uftrace skips
 * (__libc_start_main, __cxa_throw, __cxa_begin_catch, _Unwind_Resume...). */
#ifndef CKT_PLT_HOOKS_H
#define CKT_PLT_HOOKS_H

#include "ckt_base.h"

/* Hooks the slots of the modules loaded since the last call (cold). */
CKT_FN void ckt_plt_hook_modules(void);

#endif
