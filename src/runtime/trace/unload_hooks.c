/* dlclose: another library may later be mapped where the closed one was.
 * A thread finds a function's id in its table by address alone, so without
 * this the functions of the new library would keep the ids of the old
 * one's at the same addresses and the load map would never be looked at
 * again: their calls would be named after the old library's functions.
 * After the real dlclose, the modules gone are found (their segments
 * listed) and every thread is sent to its slow path once,
 * where it forgets the functions it had there (events.h,
 * ckt_func_forget_gone). The next call of such an address is a new
 * function: its lookup refreshes the load map again, which writes the
 * `module` line of whatever is there now, and its `define` comes after it.
 * dlopen is not wrapped: glibc searches the caller's RPATH/RUNPATH, so a
 * wrapper would change which library it finds. Only in the shared library,
 * like unwind_hooks.c: dlsym(RTLD_NEXT) finds the real one. */
#include <dlfcn.h>

#include "modules.h"
#include "process_state.h"
#include "thread_state.h"

CKT_API int dlclose(void *handle);

typedef int (*dlclose_fn)(void *);

CKT_FN static void forget_unloaded(void) {
  if (__atomic_load_n(&ckt_process_state, __ATOMIC_ACQUIRE) != CKT_ST_ACTIVE) return;
  const struct ckt_thread *self = ckt_tls;
  /* A handler inside a hook: the load map's lock may be held. (The inert
   * stand-in is always busy, and holds nothing.) */
  if (self && self->real && self->busy) return;
  if (!ckt_modules_note_unloads()) return;
  ckt_registry_lock();
  for (struct ckt_thread *t = ckt_registry_first(); t; t = t->next)
    __atomic_fetch_or(&t->slow, CKT_SLOW_UNLOADED, __ATOMIC_RELAXED);
  ckt_registry_unlock();
}

CKT_API int dlclose(void *handle) {
  static dlclose_fn next;
  if (!next) next = (dlclose_fn)dlsym(RTLD_NEXT, "dlclose");
  if (!next) __builtin_trap();  /* called, so it exists somewhere after us */
  int rc = next(handle);
  forget_unloaded();
  return rc;
}
