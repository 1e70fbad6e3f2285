/* The image's life: the constructor starts sampling (file, first maps,
 * handlers, the main thread's timer); a fork's child starts its own file
 * and re-arms the forking thread (timers are not inherited); the destructor
 * writes the final maps and the END record. exec needs nothing: the new
 * image inherits LD_PRELOAD and the environment and starts again.
 * Breakpoint mode has no ticks: its constructor plants (breakpoints.c), a
 * fork's child only starts its own file (it inherits the text, the int3s
 * not hit yet included, and the tables that describe them). */
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <sys/mman.h>

#include "sample_runtime.h"

static int warned_prof, warned_trap;
static const char prof_stopped[] =
    "the program set its own SIGPROF disposition: sampling stopped there (no tick of the runtime reached the program's "
    "handler)";

/* Warns when the program took SIGPROF/SIGTRAP for itself without the
 * wrappers of signal_guard.c seeing it (a raw system call). */
static void check_handlers(void) {
  if (!cks_handlers_ours(SIGPROF))
    cks_warn_once(&warned_prof,
                  cks_ticks_stopped() ? prof_stopped
                                      : "the program installed its own SIGPROF handler with a system call: sampling "
                                        "stopped there (the program's handler saw at most one tick per thread)");
  if (cks_cfg.branch_mode && !cks_handlers_ours(SIGTRAP))
    cks_warn_once(&warned_trap, "the program installed its own SIGTRAP handler: samples from then on have no steps");
}

/* The program sets SIGPROF's disposition (a handler, SIG_IGN, SIG_DFL):
 * the runtime's ticks stop before it is in, since one reaching the
 * program's handler may end the program (coreutils' sort cleans up and
 * re-raises, as for SIGTERM). Setting the runtime's own handler again (a
 * library saving and restoring the disposition) changes nothing. */
static void prof_changing(const struct sigaction *act) {
  if (cks_is_tick_handler(act)) return;
  cks_threads_stop_ticks();
  cks_warn_once(&warned_prof, prof_stopped);
}

static void start_image(void) {
  cks_write_image_record();
  cks_write_mappings();
}

static void fork_child(void) {
  cks_in_place_forked();
  if (cks_bp_active) {
    cks_breakpoints_forked();
    if (cks_open_image_file()) start_image();
    else __atomic_store_n(&cks_bp_active, 0, __ATOMIC_RELEASE); /* int3s still fire; hits are not written */
    return;
  }
  if (!cks_active) return;
  cks_lost = 0;
  warned_prof = warned_trap = 0;
  if (!cks_open_image_file()) {
    cks_active = 0;
    return;
  }
  start_image();
  if (cks_ticks_stopped()) cks_warn_once(&warned_prof, prof_stopped); /* the parent's program did it */
  struct cks_thread *t = cks_self();
  if (t) {
    t->stepping = 0;
    cks_block_step_forked(t);
    cks_thread_start(t);
  }
}

__attribute__((constructor)) static void sample_start(void) {
  if (!cks_read_config() || !cks_open_image_file()) return;
  start_image();
  cks_object_segments_build(); /* a fork's child keeps its parent's table */
  if (cks_cfg.breakpoint_mode) {
    /* guarding before the first int3 exists */
    __atomic_store_n(&cks_bp_active, 1, __ATOMIC_RELEASE);
    if (!cks_breakpoints_start()) {
      __atomic_store_n(&cks_bp_active, 0, __ATOMIC_RELEASE);
      cks_warn("the SIGTRAP handler cannot be installed: no breakpoints planted");
      return;
    }
    pthread_atfork(NULL, NULL, fork_child);
    return;
  }
  if (!cks_thread_key_init() || !cks_install_handlers()) return;
  struct cks_thread *t = cks_thread_create();
  if (!t) {
    cks_warn("cannot map the main thread's sample buffer: not sampled");
    return;
  }
  pthread_atfork(NULL, NULL, fork_child);
  __atomic_store_n(&cks_active, 1, __ATOMIC_RELEASE);
  cks_watch_prof_disposition(prof_changing); /* after the runtime's own handler is in */
  cks_thread_start(t);
}

__attribute__((destructor)) static void sample_end(void) {
  if (cks_bp_active) {
    cks_write_mappings();
    cks_write_end();
    return;
  }
  if (!cks_active) return;
  check_handlers();
  cks_threads_check_held_ticks();
  cks_write_mappings(); /* objects dlopened since the start */
  cks_write_step_stats();
  cks_write_end();
}

/* New threads: the state is created by the parent, started by the child
 * before the program's thread function runs. */
static void *thread_trampoline(void *p) {
  struct cks_thread *t = p;
  void *(*fn)(void *) = t->start_fn;
  void *arg = t->start_arg;
  cks_thread_start(t);
  return fn(arg);
}

typedef int (*create_fn)(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *);

CKS_API int pthread_create(pthread_t *thread, const pthread_attr_t *attr, void *(*fn)(void *), void *arg) {
  static create_fn real;
  if (!real) real = (create_fn)dlsym(RTLD_NEXT, "pthread_create");
  if (!real) return EAGAIN;
  cks_in_place_thread_created();
  struct cks_thread *t = __atomic_load_n(&cks_active, __ATOMIC_RELAXED) ? cks_thread_create() : NULL;
  if (!t) return real(thread, attr, fn, arg);
  check_handlers();
  cks_refresh_mappings(); /* objects dlopened since, before a crash can lose them */
  cks_object_segments_build();
  t->start_fn = fn;
  t->start_arg = arg;
  int r = real(thread, attr, thread_trampoline, t);
  if (r != 0) munmap(t, t->mapped);
  return r;
}
