/* The per-thread state pointer and the registry of live states. */
#include "thread_state.h"

#include <sched.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

__thread struct ckt_thread *ckt_tls __attribute__((tls_model("initial-exec")));
struct ckt_thread ckt_thread_off = {.busy = 1};

static struct ckt_thread *registry;
static int registry_lock_word;

CKT_FN pid_t ckt_gettid(void) { return (pid_t)syscall(SYS_gettid); }

CKT_FN void ckt_registry_lock(void) {
  while (__atomic_exchange_n(&registry_lock_word, 1, __ATOMIC_ACQUIRE)) sched_yield();
}
CKT_FN void ckt_registry_unlock(void) { __atomic_store_n(&registry_lock_word, 0, __ATOMIC_RELEASE); }

CKT_FN struct ckt_thread *ckt_registry_first(void) { return registry; }

CKT_FN void ckt_registry_add(struct ckt_thread *t) {
  ckt_registry_lock();
  t->prev = NULL;
  t->next = registry;
  if (registry) registry->prev = t;
  registry = t;
  ckt_registry_unlock();
}

CKT_FN void ckt_registry_remove(struct ckt_thread *t) {
  ckt_registry_lock();
  if (t->prev) t->prev->next = t->next;
  else if (registry == t) registry = t->next;
  if (t->next) t->next->prev = t->prev;
  t->next = t->prev = NULL;
  ckt_registry_unlock();
}

CKT_FN void ckt_registry_forget_others(struct ckt_thread *keep) {
  struct ckt_thread *t = registry;
  while (t) {
    struct ckt_thread *next = t->next;
    if (t != keep) {
      ckt_stream_abandon(&t->s);
      munmap(t, t->map_bytes);
    }
    t = next;
  }
  registry = keep;
  if (keep) keep->next = keep->prev = NULL;
}
