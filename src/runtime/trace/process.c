/* Process start (lazy, at the first event of any thread), calibration
 * period, process end. */
#include "process.h"

#include <errno.h>
#include <sched.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "clock.h"
#include "config.h"
#include "fork.h"
#include "process_meta.h"
#include "thread_state.h"

enum { ST_NEW, ST_STARTING, ST_ACTIVE, ST_INERT };
static int state = ST_NEW;
uint64_t ckt_min_ticks;
static uint64_t calib0_counter, calib0_ns;

CKT_FN void ckt_warn(const char *what, const char *path) {
  static int warned;
  if (__atomic_exchange_n(&warned, 1, __ATOMIC_RELAXED)) return;
  struct ckt_line l;
  ckt_line_init(&l, "covkit-trace: ");
  ckt_line_str(&l, what);
  ckt_line_str(&l, " ");
  ckt_line_str(&l, path);
  ckt_line_str(&l, " (tracing off)\n");
  if (write(2, l.buf, l.n) < 0) { /* nothing to do */ }
}

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

CKT_FN void ckt_process_calib_start(void) {
  ckt_meta_calib(&calib0_counter, &calib0_ns);
  /* The first period is short (the TSC rate is not known yet); later ones
   * are a second long. */
  uint64_t first = ckt_clock_tsc ? (uint64_t)1 << 27 : 100000000u;
  __atomic_store_n(&ckt_next_calib, calib0_counter + first, __ATOMIC_RELAXED);
}

CKT_FN static int start(void) {
  if (!ckt_config_load()) return 0;
  if (!mkdir_p(ckt_cfg.dir)) {
    ckt_warn("cannot create the trace directory", ckt_cfg.dir);
    return 0;
  }
  ckt_clock_init(ckt_cfg.force_mono);
  ckt_pid = getpid();
  ckt_ppid = getppid();
  if (!ckt_meta_open()) {
    ckt_warn("cannot write in the trace directory", ckt_cfg.dir);
    return 0;
  }
  ckt_min_ticks = ckt_clock_ns_to_ticks(ckt_cfg.min_time_ns);
  ckt_process_calib_start();
  if (!ckt_thread_key_init()) return 0;
  ckt_fork_init();
  return 1;
}

CKT_FN int ckt_process_ensure(void) {
  int s = __atomic_load_n(&state, __ATOMIC_ACQUIRE);
  if (CKT_LIKELY(s == ST_ACTIVE)) return 1;
  if (s == ST_INERT) return 0;
  int expected = ST_NEW;
  if (__atomic_compare_exchange_n(&state, &expected, ST_STARTING, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
    s = start() ? ST_ACTIVE : ST_INERT;
    __atomic_store_n(&state, s, __ATOMIC_RELEASE);
    return s == ST_ACTIVE;
  }
  while ((s = __atomic_load_n(&state, __ATOMIC_ACQUIRE)) == ST_STARTING) sched_yield();
  return s == ST_ACTIVE;
}

CKT_FN int ckt_process_active(void) {
  return __atomic_load_n(&state, __ATOMIC_ACQUIRE) == ST_ACTIVE;
}

CKT_FN void ckt_process_set_inert(void) {
  __atomic_store_n(&state, ST_INERT, __ATOMIC_RELEASE);
  __atomic_store_n(&ckt_next_calib, UINT64_MAX, __ATOMIC_RELAXED);
}

CKT_FN void ckt_calib_tick(uint64_t now) {
  uint64_t next = ckt_next_calib;
  if (now < next) return;
  /* One thread claims the period. */
  if (!__atomic_compare_exchange_n(&ckt_next_calib, &next, UINT64_MAX, 0, __ATOMIC_RELAXED,
                                   __ATOMIC_RELAXED))
    return;
  uint64_t c, ns;
  ckt_meta_calib(&c, &ns);
  uint64_t per_sec = ckt_clock_tsc ? ckt_clock_rate(calib0_counter, calib0_ns, c, ns) : 1000000000u;
  if (!per_sec) per_sec = (uint64_t)1 << 30;
  __atomic_store_n(&ckt_next_calib, c + per_sec, __ATOMIC_RELAXED);
}

/* Normal process end (exit or return from main): after the program's own
 * atexit handlers and destructors. Closes the calling thread's stream;
 * threads still running keep theirs unfinished (no `end`). */
__attribute__((destructor(101))) CKT_FN static void process_end(void) {
  if (!ckt_process_active()) return;
  struct ckt_thread *t = ckt_tls;
  if (t && t->real) ckt_thread_finish(t);
  uint64_t c, ns;
  ckt_meta_calib(&c, &ns);
  ckt_meta_end(c);
}
