/* Process start (lazy, at the first event of any thread) and end. */
#include "process.h"

#include <errno.h>
#include <sched.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "calib.h"
#include "clock.h"
#include "config.h"
#include "filters.h"
#include "fork.h"
#include "plt_stubs.h"
#include "process_meta.h"
#include "process_state.h"
#include "thread_life.h"
#include "warn.h"

CKT_FN static int mkdir_p(const char *dir) {
  char p[CKT_PATH_MAX];
  strcpy(p, dir);
  for (char *s = p + 1; *s; s++) {
    if (*s != '/') continue;
    *s = 0;
    if (mkdir(p, 0755) != 0 && errno != EEXIST) return 0;
    *s = '/';
  }
  if (mkdir(p, 0755) != 0 && errno != EEXIST) return 0;
  struct stat st;
  return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

CKT_FN static int start(void) {
  if (!ckt_config_load() || !ckt_filters_load()) return 0;
  if (!mkdir_p(ckt_cfg.dir)) {
    ckt_warn("cannot create the trace directory", ckt_cfg.dir);
    return 0;
  }
  ckt_clock_init(ckt_cfg.clock_choice);
  ckt_pid = getpid();
  ckt_ppid = getppid();
  if (!ckt_meta_open()) {
    ckt_warn("cannot write in the trace directory", ckt_cfg.dir);
    return 0;
  }
  ckt_plt_meta_open();
  ckt_min_ticks = ckt_clock_ns_to_ticks(ckt_cfg.min_time_ns);
  ckt_calib_start();
  if (!ckt_thread_key_init()) return 0;
  ckt_fork_init();
  return 1;
}

/* 1 when tracing is on (starts the process at the first call). */
CKT_FN static int ensure(void) {
  int s = __atomic_load_n(&ckt_process_state, __ATOMIC_ACQUIRE);
  if (CKT_LIKELY(s == CKT_ST_ACTIVE)) return 1;
  if (s == CKT_ST_INERT) return 0;
  int expected = CKT_ST_NEW;
  if (__atomic_compare_exchange_n(&ckt_process_state, &expected, CKT_ST_STARTING, 0, __ATOMIC_ACQ_REL,
                                  __ATOMIC_ACQUIRE)) {
    s = start() ? CKT_ST_ACTIVE : CKT_ST_INERT;
    __atomic_store_n(&ckt_process_state, s, __ATOMIC_RELEASE);
    return s == CKT_ST_ACTIVE;
  }
  while ((s = __atomic_load_n(&ckt_process_state, __ATOMIC_ACQUIRE)) == CKT_ST_STARTING) sched_yield();
  return s == CKT_ST_ACTIVE;
}

CKT_FN struct ckt_thread *ckt_thread_attach(void) {
  ckt_tls = &ckt_thread_off;  /* events raised while setting up are dropped */
  CKT_BARRIER();
  if (!ensure()) return &ckt_thread_off;
  struct ckt_thread *t = ckt_thread_create();
  if (!t) return &ckt_thread_off;
  CKT_BARRIER();
  ckt_tls = t;
  return t;
}

/* Normal process end (exit or return from main): after the program's own
 * atexit handlers and destructors. Closes the calling thread's stream;
 * threads still running keep theirs unfinished (no `end`), but their names
 * as they are now go into the metadata (a thread named after its start
 * never gets to say so at its own end). */
__attribute__((destructor(101))) CKT_FN static void process_end(void) {
  if (!ckt_process_active()) return;
  /* A vfork child that calls exit(): the files are its parent's, which
   * goes on (vfork_entry.S). */
  if (getpid() != ckt_pid) return;
  struct ckt_thread *t = ckt_tls;
  if (t && t->real) ckt_thread_finish(t);
  ckt_registry_lock();
  for (struct ckt_thread *o = ckt_registry_first(); o; o = o->next) ckt_meta_other_thread(o->tid);
  ckt_registry_unlock();
  uint64_t c, ns;
  ckt_meta_calib(&c, &ns);
  ckt_meta_end(c);
}
