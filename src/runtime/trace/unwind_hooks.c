/* Unwinding -pg frames: an unwinder looks functions up by their return
 * addresses, so it must never meet the exit trampoline (return_hook.h).
 * The entry points through which a program starts unwinding are wrapped:
 *  - _Unwind_RaiseException, _Unwind_Resume_or_Rethrow (C++ throw and
 *    rethrow, called by libstdc++ through its PLT): the original return
 *    addresses go back into every live frame first;
 *  - __cxa_begin_catch (called by each catch handler): the frames the
 *    exception left are closed, the ones above the handler hooked again;
 *  - pthread_exit: the addresses go back before its forced unwind; the
 *    thread's end closes the frames (glibc calls libgcc's unwinder through
 *    pointers it looked up itself, so _Unwind_ForcedUnwind cannot be
 *    wrapped).
 * Without hooked frames (a -finstrument-functions program) each wrapper
 * only calls the real function. Not wrapped: a statically linked libgcc
 * or libstdc++ (their calls do not go through the PLT) and pthread_cancel
 * (the unwind starts inside glibc): docs/covkit-trace.md, "Hooks". */
#include <dlfcn.h>
#include <pthread.h>

#include "clock.h"
#include "return_hook.h"

CKT_API int _Unwind_RaiseException(void *exception);
CKT_API int _Unwind_Resume_or_Rethrow(void *exception);
CKT_API void *__cxa_begin_catch(void *exception);
CKT_API void pthread_exit(void *value) __attribute__((noreturn));

typedef int (*unwind_fn)(void *);
typedef void *(*catch_fn)(void *);
typedef void (*exit_fn)(void *) __attribute__((noreturn));

CKT_FN static void *real(const char *name) {
  void *p = dlsym(RTLD_NEXT, name);
  if (!p) __builtin_trap();  /* called, so it exists somewhere after us */
  return p;
}

/* The calling thread's hooked frames above sp get their addresses back. */
CKT_FN static void unhook(uintptr_t sp) {
  struct ckt_thread *t = ckt_tls;
  if (!t || !t->real || t->busy || t->depth == 0) return;
  t->busy = 1;
  CKT_BARRIER();
  ckt_unhook_live(t, sp);
  CKT_BARRIER();
  t->busy = 0;
}

CKT_API int _Unwind_RaiseException(void *exception) {
  static unwind_fn next;
  if (!next) next = (unwind_fn)real("_Unwind_RaiseException");
  unhook((uintptr_t)__builtin_frame_address(0));
  return next(exception);
}

CKT_API int _Unwind_Resume_or_Rethrow(void *exception) {
  static unwind_fn next;
  if (!next) next = (unwind_fn)real("_Unwind_Resume_or_Rethrow");
  unhook((uintptr_t)__builtin_frame_address(0));
  return next(exception);
}

CKT_API void *__cxa_begin_catch(void *exception) {
  static catch_fn next;
  if (!next) next = (catch_fn)real("__cxa_begin_catch");
  struct ckt_thread *t = ckt_tls;
  if (t && t->real && !t->busy && t->depth != 0 && (t->stack[t->depth - 1].slot & CKT_HOOKED)) {
    t->busy = 1;
    CKT_BARRIER();
    uint64_t now = ckt_now();
    if (now < t->last) now = t->last;
    /* The handler's stack pointer is our CFA; the frames it called had
     * their slots below it. */
    ckt_rehook_live(t, (uintptr_t)__builtin_dwarf_cfa() - sizeof(uintptr_t), now);
    CKT_BARRIER();
    t->busy = 0;
  }
  return next(exception);
}

CKT_API void pthread_exit(void *value) {
  static exit_fn next;
  if (!next) next = (exit_fn)real("pthread_exit");
  unhook((uintptr_t)__builtin_frame_address(0));
  next(value);
}
