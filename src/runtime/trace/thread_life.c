/* Thread states: created by mmap at a thread's first event, ended by a
 * pthread key destructor (thread exit) or the process end. */
#include "thread_life.h"

#include <errno.h>
#include <pthread.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "clock.h"
#include "config.h"
#include "events.h"
#include "filters.h"
#include "modules.h"
#include "process_meta.h"
#include "return_hook.h"
#include "warn.h"

static pthread_key_t key;

CKT_FN static size_t header_bytes(void) {
  size_t page = (size_t)sysconf(_SC_PAGESIZE);
  return (sizeof(struct ckt_thread) + page - 1) / page * page;
}

/* The calling thread's stack, for telling its frames from other stacks'. */
CKT_FN static void stack_bounds(struct ckt_thread *t) {
  t->stack_lo = 0;
  t->stack_hi = UINTPTR_MAX;
  pthread_attr_t a;
  if (pthread_getattr_np(pthread_self(), &a) != 0) return;
  void *addr;
  size_t size;
  if (pthread_attr_getstack(&a, &addr, &size) == 0 && size > 0) {
    t->stack_lo = (uintptr_t)addr;
    t->stack_hi = (uintptr_t)addr + size;
  }
  pthread_attr_destroy(&a);
}

/* A disk or file size limit that is full is not worth a line on the
 * program's stderr: the thread is simply not traced. */
CKT_FN static int out_of_space(int err) { return err == ENOSPC || err == EFBIG || err == EDQUOT; }

CKT_FN struct ckt_thread *ckt_thread_create(void) {
  size_t bytes = header_bytes() + (size_t)CKT_STACK_CAP * (sizeof(struct ckt_frame) + sizeof(struct ckt_pend)) +
                 (size_t)CKT_FT_SIZE * (sizeof(uintptr_t) + sizeof(uint32_t));
  void *mem = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (mem == MAP_FAILED) return NULL;
  struct ckt_thread *t = mem;
  t->stack = (struct ckt_frame *)((char *)mem + header_bytes());
  t->pend = (struct ckt_pend *)(t->stack + CKT_STACK_CAP);
  t->keys = (uintptr_t *)(t->pend + CKT_STACK_CAP);
  t->ids = (uint32_t *)(t->keys + CKT_FT_SIZE);
  t->map_bytes = bytes;
  t->real = 1;
  t->pend_lo = CKT_NONE;
  t->max_depth = ckt_cfg.max_depth;
  t->fast_depth = t->max_depth < CKT_STACK_CAP ? t->max_depth : CKT_STACK_CAP;
  t->min_ticks = ckt_min_ticks;
  t->slow = t->min_ticks ? CKT_SLOW_MINTIME : 0;
  t->only_lo = t->notrace_lo = CKT_NONE;
  if (ckt_filter_active) t->slow |= CKT_SLOW_FILTER;
  t->gone_seen = ckt_modules_gone_count();  /* nothing cached yet */
  t->tid = ckt_gettid();
  stack_bounds(t);
  t->last = ckt_now();
  errno = 0;
  if (!ckt_stream_open(&t->s, t->tid, t->last, t->scratch, &t->last)) {
    if (!out_of_space(errno)) ckt_warn("cannot create a thread stream in", ckt_cfg.dir);
    munmap(mem, bytes);
    return NULL;
  }
  pthread_setspecific(key, t);
  ckt_registry_add(t);
  ckt_meta_thread(t->tid);
  return t;
}

CKT_FN void ckt_thread_finish(struct ckt_thread *t) {
  ckt_tls = &ckt_thread_off;
  CKT_BARRIER();
  t->busy = 1;
  /* -pg frames still open never return through the trampoline now (the
   * thread or process is ending), but nothing may meet it either. */
  ckt_unhook_live(t, (uintptr_t)__builtin_frame_address(0));
  uint64_t now = ckt_now();
  if (now < t->last) now = t->last;
  ckt_close_all(t, now);
  ckt_write_end(t, now);
  uint64_t lost = __atomic_exchange_n(&t->lost, 0, __ATOMIC_RELAXED);
  ckt_stream_close(&t->s, 1, lost);
  ckt_meta_thread(t->tid);  /* the name again: it may have been set since */
  ckt_registry_remove(t);
  pthread_setspecific(key, NULL);
  munmap(t, t->map_bytes);
}

CKT_FN static void key_destructor(void *p) {
  struct ckt_thread *t = p;
  if (t && t == ckt_tls && t->real) ckt_thread_finish(t);
}

CKT_FN int ckt_thread_key_init(void) { return pthread_key_create(&key, key_destructor) == 0; }

CKT_FN void ckt_thread_drop_in_child(struct ckt_thread *t) {
  ckt_tls = &ckt_thread_off;
  CKT_BARRIER();
  ckt_unhook_live(t, (uintptr_t)__builtin_frame_address(0));  /* the child returns through them untraced */
  ckt_stream_abandon(&t->s);
  ckt_registry_remove(t);
  pthread_setspecific(key, NULL);
  munmap(t, t->map_bytes);
}

CKT_FN void ckt_thread_restart_in_child(struct ckt_thread *t) {
  uint8_t was_busy = t->busy;
  t->busy = 1;
  CKT_BARRIER();
  ckt_stream_abandon(&t->s);  /* the parent's file: not ours any more */
  t->tid = ckt_gettid();
  memset(t->keys, 0, (size_t)CKT_FT_SIZE * sizeof(uintptr_t));
  t->gone_seen = ckt_modules_gone_count();
  t->nids = 0;
  t->lost = 0;
  t->pend_lo = CKT_NONE;  /* flushed by the prepare handler */
  memset(t->defined, 0, sizeof t->defined);
  t->last = ckt_now();
  if (!ckt_stream_open(&t->s, t->tid, t->last, t->scratch, &t->last)) {
    ckt_thread_drop_in_child(t);
    return;
  }
  ckt_write_stack(t, t->last);
  ckt_meta_thread(t->tid);
  CKT_BARRIER();
  t->busy = was_busy;
}
