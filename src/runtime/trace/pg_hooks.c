/* The C halves of the -pg hooks (pg_entry.S): ckt_pg_enter records an
 * enter and hooks the return address, ckt_pg_exit records the exit and
 * gives the original address back. Same events and shadow stack as the
 * -finstrument-functions hooks (hooks.c), with these differences:
 *  - the slot is exact (given by the hook), and every hook call is a real
 *    call: -pg does not instrument inlined copies;
 *  - a slot that holds the trampoline already is a tail call (`jmp` from a
 *    hooked function): the jumping function is over and the new one
 *    returns where it would have;
 *  - an enter that cannot be tracked (re-entered from a signal handler,
 *    shadow stack full) is not hooked: its enter and exit are lost (2).
 * Hot path: per-thread state only, no lock, allocation or system call. */
#include <dlfcn.h>
#include <unistd.h>

#include "pg_hooks.h"

#include "calib.h"
#include "clock.h"
#include "events.h"
#include "filters.h"
#include "process.h"
#include "process_meta.h"
#include "process_state.h"
#include "return_hook.h"

CKT_INLINE uint32_t load32(uintptr_t p) {
  uint32_t v;
  __builtin_memcpy(&v, (const void *)p, sizeof v);
  return v;
}

#define CKT_ENDBR64 0xfa1e0ff3u     /* f3 0f 1e fa */
#define CKT_PUSH_MOV_RBP 0xe5894855u /* push %rbp; mov %rsp,%rbp */
/* How far before the mcount call its function's `push %rbp` may be (-O0
 * puts `sub $N,%rsp` and pushes of saved registers between). */
#define CKT_MCOUNT_PROLOGUE 64

/* Where the hook's call instruction starts: `call rel32` (e8, 5 bytes),
 * `call *mcount@GOTPCREL(%rip)` (ff 15, 6) or its relaxed form
 * `addr32 call` (67 e8, 6). */
CKT_INLINE uintptr_t call_start(uintptr_t ra) {
  const uint8_t *p = (const uint8_t *)ra;
  if ((p[-6] == 0xff && p[-5] == 0x15) || (p[-6] == 0x67 && p[-5] == 0xe8)) return ra - 6;
  return ra - 5;
}

/* The function's address, as -finstrument-functions would give it: for
 * __fentry__ the call is its first instruction (after endbr64), for mcount
 * the call follows the prologue that starts with `push %rbp; mov %rsp,%rbp`.
 * A prologue not found leaves the call's address (named function+offset). */
CKT_INLINE uintptr_t function_of(uintptr_t ra, unsigned kind) {
  if (kind == CKT_HOOK_PLT) return ra; /* the slot's stub (plt_hooks.c) */
  uintptr_t c = call_start(ra);
  if (kind == CKT_HOOK_MCOUNT) {
    uintptr_t p = c - 4;
    while (load32(p) != CKT_PUSH_MOV_RBP) {
      if (c - p >= CKT_MCOUNT_PROLOGUE) return c;
      p--;
    }
    c = p;
  }
  return load32(c - 4) == CKT_ENDBR64 ? c - 4 : c;
}

/* glibc's mcount / __fentry__, for a process that does not trace: a -pg
 * program's gmon.out stays complete when the runtime is inert. */
static void *next_hook[3];

CKT_COLD static uintptr_t next_of(unsigned kind) {
  /* Patched or hooked only when tracing: never reached inert. */
  if (kind == CKT_HOOK_PATCH || kind == CKT_HOOK_PLT) return 0;
  void *p = __atomic_load_n(&next_hook[kind], __ATOMIC_RELAXED);
  if (!p) {
    p = dlsym(RTLD_NEXT, kind == CKT_HOOK_MCOUNT ? "mcount" : "__fentry__");
    if (!p) p = (void *)1;  /* none: remembered */
    __atomic_store_n(&next_hook[kind], p, __ATOMIC_RELAXED);
  }
  return p == (void *)1 ? 0 : (uintptr_t)p;
}

CKT_COLD static struct ckt_thread *first_event(unsigned kind) {
  struct ckt_thread *t = ckt_thread_attach();
  if (t->real) ckt_meta_hook(kind);
  return t;
}

/* Closes the open frames proven gone by a call whose slot is `s`: those at
 * or below it on the same stack (left by longjmp, or the tail-calling
 * function). */
CKT_INLINE void pop_dead(struct ckt_thread *t, uintptr_t s, uint64_t now) {
  while (t->depth) {
    uintptr_t ts = CKT_SLOT(&t->stack[t->depth - 1]);
    if (ts > s || !ckt_same_stack(t, ts, s)) break;
    ckt_pop_one(t, now);
  }
}

/* The runtime lost a return address it replaced: the program cannot go on. */
CKT_COLD static void fatal(const char *what) {
  static const char head[] = "covkit-trace: ", tail[] = ": the program cannot return (a bug: please report it)\n";
  size_t n = 0;
  while (what[n]) n++;
  ssize_t w = write(2, head, sizeof head - 1);  /* nothing to do if stderr is gone */
  w = write(2, what, n);
  w = write(2, tail, sizeof tail - 1);
  (void)w;
  __builtin_trap();
}

CKT_FN uintptr_t ckt_pg_enter(uintptr_t *slot, uintptr_t self, unsigned kind) {
  struct ckt_thread *t = ckt_tls;
  if (CKT_UNLIKELY(t == NULL)) t = first_event(kind);
  if (CKT_UNLIKELY(t->busy)) {  /* a signal handler inside a hook, or off */
    if (t->real) {
      ckt_count_lost(t);
      ckt_count_lost(t);
    } else if (__atomic_load_n(&ckt_process_state, __ATOMIC_RELAXED) == CKT_ST_INERT) {
      return next_of(kind);
    }
    return 0;
  }
  /* Switched off (covkit trace attach, --signal): not followed at all, so a
   * process waiting to be attached pays little more than the hook's call. */
  if (CKT_UNLIKELY(t->slow & CKT_SLOW_FILTER) && ckt_filter_idle()) return 0;
  t->busy = 1;
  CKT_BARRIER();
  uint64_t now = ckt_now();
  if (CKT_UNLIKELY(now < t->last)) now = t->last;
  uintptr_t s = (uintptr_t)slot, site = *slot;
  if (CKT_UNLIKELY(site == CKT_TRAMPOLINE)) {
    site = ckt_hooked_site(t, s);
    if (!site) fatal("a tail call from a function whose return address is lost");
  }
  uintptr_t fn = function_of(self, kind);
  uint32_t d = t->depth;
  if (CKT_LIKELY(d != 0) && CKT_UNLIKELY(CKT_SLOT(&t->stack[d - 1]) <= s)) {
    pop_dead(t, s, now);
    d = t->depth;
  }
  if (CKT_UNLIKELY(d >= CKT_STACK_CAP)) {  /* not tracked, so not hooked */
    ckt_count_lost(t);
    ckt_count_lost(t);
    goto out;
  }
  if (CKT_UNLIKELY((t->slow | t->lost) != 0 || now >= ckt_next_calib || d >= t->fast_depth)) {
    if (now >= ckt_next_calib) ckt_calib_tick(now);
    ckt_enter_push(t, fn, site, s | CKT_HOOKED, self, now);
  } else {
    uint32_t entry = ckt_func_entry(t, fn, now, CKT_LOOKUP_ITERATE | CKT_LOOKUP_DEFINE);
    if (CKT_UNLIKELY(entry == CKT_NO_ID)) {
      ckt_enter_push(t, fn, site, s | CKT_HOOKED, self, now);
    } else {
      struct ckt_frame *f = &t->stack[d];
      f->fn = fn;
      f->site = site;
      f->ra = self;
      f->slot = s | CKT_HOOKED | CKT_WRITTEN;
      t->depth = d + 1;
      ckt_write_enter_now(t, now, CKT_ID(entry));
    }
  }
  if (CKT_LIKELY(t->depth == d + 1)) *slot = CKT_TRAMPOLINE;
out:
  CKT_BARRIER();
  t->busy = 0;
  return 0;
}

CKT_FN uintptr_t ckt_pg_exit(uintptr_t slot) {
  struct ckt_thread *t = ckt_tls;
  if (CKT_UNLIKELY(t == NULL || !t->real)) fatal("an exit trampoline ran in a thread whose trace has ended");
  uint32_t d = t->depth;
  const struct ckt_frame *f = &t->stack[d - 1];
  if (CKT_UNLIKELY(t->busy)) {  /* cannot be (hooks never hook while busy): no event */
    uintptr_t site = ckt_hooked_site(t, slot);
    if (!site) fatal("an exit trampoline found no return address");
    ckt_count_lost(t);
    return site;
  }
  t->busy = 1;
  CKT_BARRIER();
  uint64_t now = ckt_now();
  if (CKT_UNLIKELY(now < t->last)) now = t->last;
  uintptr_t site;
  if (CKT_LIKELY(d != 0 && f->slot == (slot | CKT_HOOKED | CKT_WRITTEN) && (t->slow | t->lost) == 0)) {
    site = f->site;
    t->depth = d - 1;
    ckt_write_exit_now(t, now);
  } else {
    /* Frames below the returning one are gone (longjmp); then the top is
     * it, or it lies under frames of another stack (a coroutine's, maybe
     * still live: kept as orphans), or it was closed as an orphan. */
    while (t->depth && CKT_SLOT(&t->stack[t->depth - 1]) < slot &&
           ckt_same_stack(t, CKT_SLOT(&t->stack[t->depth - 1]), slot))
      ckt_pop_one(t, now);
    uint32_t i = t->depth;
    while (i && !(CKT_SLOT(&t->stack[i - 1]) == slot && (t->stack[i - 1].slot & CKT_HOOKED))) i--;
    if (i) {
      site = t->stack[i - 1].site;
      while (t->depth > i) {
        const struct ckt_frame *o = &t->stack[t->depth - 1];
        if (o->slot & CKT_HOOKED) ckt_orphan_add(t, CKT_SLOT(o), o->site);
        ckt_pop_one(t, now);
      }
      ckt_pop_one(t, now);
    } else {
      site = ckt_orphan_take(t, slot);
      if (!site) fatal("an exit trampoline found no return address");
    }
    ckt_write_lost(t, now);
  }
  CKT_BARRIER();
  t->busy = 0;
  return site;
}
