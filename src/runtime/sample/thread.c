/* Per-thread state: one mmap per thread (the record buffer of the signal
 * handlers, so they never allocate), its stack range, and its CPU-time
 * timer. New threads are caught by wrapping pthread_create (the state is
 * created by the parent, started by the child before the program's thread
 * function runs: process.c); a pthread key destructor deletes the timer when
 * the thread ends.
 * The threads with a timer are listed, so that all the timers can be
 * deleted at once when the program takes SIGPROF for itself (process.c):
 * one more tick of the runtime would reach the program's handler, which
 * may end the program (coreutils' sort treats SIGPROF as SIGTERM). The
 * list's lock is held with every signal blocked, so a handler of the
 * program that sets SIGPROF's disposition never waits on its own thread.
 * A deleted timer's id is not handed out again until the process's ids
 * wrap (the kernel counts them up): a thread's own late re-arm of it
 * fails, and never arms a timer of the program. */
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "sample_runtime.h"

static __thread struct cks_thread *self __attribute__((tls_model("initial-exec")));
static pthread_key_t key;
static struct cks_thread *threads; /* under threads_lock */
static int threads_lock, stopped;  /* atomic */

static void lock_threads(sigset_t *saved) {
  sigset_t all;
  sigfillset(&all);
  pthread_sigmask(SIG_BLOCK, &all, saved);
  while (__atomic_exchange_n(&threads_lock, 1, __ATOMIC_ACQUIRE)) sched_yield();
}

static void unlock_threads(const sigset_t *saved) {
  __atomic_store_n(&threads_lock, 0, __ATOMIC_RELEASE);
  pthread_sigmask(SIG_SETMASK, saved, NULL);
}

static void unlist(struct cks_thread *t) {
  if (!t->listed) return;
  if (t->prev_thread) t->prev_thread->next_thread = t->next_thread;
  else threads = t->next_thread;
  if (t->next_thread) t->next_thread->prev_thread = t->prev_thread;
  t->listed = 0;
}

static void delete_timer(struct cks_thread *t) {
  if (!__atomic_exchange_n(&t->timer_ok, 0, __ATOMIC_ACQ_REL)) return;
  timer_delete(t->timer);
}

CKS_FN int cks_ticks_stopped(void) { return __atomic_load_n(&stopped, __ATOMIC_ACQUIRE); }

/* Under the lock even when stopped already: a second thread's call
 * returns only once the first one's timers are gone. */
CKS_FN void cks_threads_stop_ticks(void) {
  sigset_t saved;
  lock_threads(&saved);
  if (!cks_ticks_stopped()) {
    __atomic_store_n(&stopped, 1, __ATOMIC_RELEASE);
    for (struct cks_thread *t = threads; t; t = t->next_thread) delete_timer(t);
  }
  unlock_threads(&saved);
}

/* fork() holds the list's lock, so that the child's copy is whole: its
 * program may set SIGPROF's disposition in its own fork handlers. */
static sigset_t fork_mask;
static void fork_prepare(void) { lock_threads(&fork_mask); }
static void fork_parent(void) { unlock_threads(&fork_mask); }
static void fork_child(void) {
  /* The parent's threads and timers are not the child's (a timer's id
   * there may become one of the child's program): the forking thread
   * starts again (process.c), if sampling goes on. */
  threads = NULL;
  if (self) {
    self->listed = 0;
    self->timer_ok = 0;
  }
  unlock_threads(&fork_mask);
}

CKS_FN struct cks_thread *cks_self(void) { return self; }

CKS_FN struct cks_thread *cks_thread_create(void) {
  size_t size = sizeof(struct cks_thread) + CKS_SAMPLE_FIXED + 8u * CKS_MAX_STACK + 8u * (size_t)cks_cfg.step_cap + 64;
  size = (size + 4095) & ~(size_t)4095;
  void *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) return NULL;
  struct cks_thread *t = p;
  t->mapped = size;
  return t;
}

/* xorshift64*: jitter without libc's locked rand() */
static uint64_t next_random(struct cks_thread *t) {
  t->rng ^= t->rng >> 12;
  t->rng ^= t->rng << 25;
  t->rng ^= t->rng >> 27;
  return t->rng * 2685821657736338717ull;
}

/* Uniform in [period/2, 3*period/2): the mean stays the period, and the
 * ticks cannot lock onto a loop whose length divides the period. */
CKS_FN void cks_thread_arm(struct cks_thread *t) {
  if (!__atomic_load_n(&t->timer_ok, __ATOMIC_ACQUIRE)) return;
  uint64_t p = cks_cfg.period_ns;
  uint64_t ns = p / 2 + next_random(t) % (p ? p : 1);
  struct itimerspec its;
  memset(&its, 0, sizeof its);
  its.it_value.tv_sec = (time_t)(ns / 1000000000u);
  its.it_value.tv_nsec = (long)(ns % 1000000000u);
  timer_settime(t->timer, 0, &its, NULL);
}

static void stack_range(struct cks_thread *t) {
  pthread_attr_t attr;
  void *addr;
  size_t size;
  if (pthread_getattr_np(pthread_self(), &attr) != 0) return;
  if (pthread_attr_getstack(&attr, &addr, &size) == 0) {
    t->stack_lo = (uintptr_t)addr;
    t->stack_hi = (uintptr_t)addr + size;
  }
  pthread_attr_destroy(&attr);
}

CKS_FN void cks_thread_start(struct cks_thread *t) {
  t->tid = (int)syscall(SYS_gettid);
  t->pid = getpid();
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  t->rng = ((uint64_t)ts.tv_nsec << 20) ^ (uint64_t)t->tid ^ 0x9e3779b97f4a7c15ull;
  stack_range(t);
  struct sigevent sev;
  memset(&sev, 0, sizeof sev);
  sev.sigev_notify = SIGEV_THREAD_ID;
  sev.sigev_signo = SIGPROF;
  sev._sigev_un._tid = t->tid;
  int failed = 0;
  sigset_t saved;
  lock_threads(&saved);
  t->timer_ok = 0; /* a fork's child: the parent's timer */
  t->listed = 0;
  if (!cks_ticks_stopped()) {
    failed = timer_create(CLOCK_THREAD_CPUTIME_ID, &sev, &t->timer) != 0;
    t->timer_ok = !failed;
    t->prev_thread = NULL;
    t->next_thread = threads;
    if (threads) threads->prev_thread = t;
    threads = t;
    t->listed = 1;
  }
  unlock_threads(&saved);
  if (failed) cks_warn("timer_create(CLOCK_THREAD_CPUTIME_ID) failed: a thread was not sampled");
  __atomic_signal_fence(__ATOMIC_SEQ_CST);
  self = t;
  pthread_setspecific(key, t);
  cks_thread_arm(t);
}

/* A thread that keeps SIGPROF blocked (thread pools block every signal in
 * their workers, as liblzma's do for xz -T, so that signals go to the main
 * thread) holds the runtime's one-shot tick pending and is never sampled;
 * no tick can say so, so its end does, or the process's end for threads
 * still running then. */
static int warned_held;
static void warn_held(void) {
  cks_warn_once(&warned_held, "a thread kept SIGPROF blocked, so the runtime's ticks never reached it: not sampled "
                              "(--source perf samples such threads)");
}

/* This thread's; asked before its timer goes, which drops the pending tick
 * with it. */
static void check_own_held_tick(void) {
  sigset_t pending, mask;
  if (sigpending(&pending) != 0 || !sigismember(&pending, SIGPROF)) return;
  if (pthread_sigmask(SIG_SETMASK, NULL, &mask) != 0 || !sigismember(&mask, SIGPROF)) return;
  warn_held();
}

/* SigPnd and SigBlk of a thread's status (they come after Groups, which
 * has no bound: read line by line). */
struct signal_masks {
  uint64_t pending, blocked;
  int found; /* 1: pending, 2: blocked */
};

static int signal_mask_line(const char *line, void *arg) {
  struct signal_masks *m = arg;
  const int which = !strncmp(line, "SigPnd:", 7) ? 1 : !strncmp(line, "SigBlk:", 7) ? 2 : 0;
  if (!which) return 0;
  char *end;
  const uint64_t value = strtoull(line + 7, &end, 16);
  if (end == line + 7) return 0;
  if (which == 1) m->pending = value;
  else m->blocked = value;
  m->found |= which;
  return m->found == 3;
}

/* Another thread's, from the kernel's view of it: its one-shot timer fired
 * and was never re-armed (a tick's handler re-arms it), and the tick is
 * pending and blocked there. */
static int tick_held(struct cks_thread *t) {
  struct itimerspec left;
  if (timer_gettime(t->timer, &left) != 0 || left.it_value.tv_sec || left.it_value.tv_nsec) return 0;
  char path[64];
  snprintf(path, sizeof path, "/proc/self/task/%d/status", t->tid);
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return 0;
  struct signal_masks m = {0, 0, 0};
  cks_for_each_line(fd, signal_mask_line, &m);
  close(fd);
  const uint64_t prof = 1ull << (SIGPROF - 1);
  return m.found == 3 && (m.pending & prof) && (m.blocked & prof);
}

/* At the process's end (its exiting thread, then the threads still
 * listed). */
CKS_FN void cks_threads_check_held_ticks(void) {
  check_own_held_tick();
  sigset_t saved;
  lock_threads(&saved);
  for (struct cks_thread *t = threads; t && !warned_held; t = t->next_thread)
    if (t != self && __atomic_load_n(&t->timer_ok, __ATOMIC_ACQUIRE) && tick_held(t)) warn_held();
  unlock_threads(&saved);
}

static void thread_end(void *p) {
  struct cks_thread *t = p;
  check_own_held_tick();
  sigset_t saved;
  lock_threads(&saved);
  unlist(t);
  delete_timer(t);
  unlock_threads(&saved);
  cks_block_step_end(t);
  self = NULL; /* a pending tick or trap finds no state and leaves */
  __atomic_signal_fence(__ATOMIC_SEQ_CST);
  munmap(t, t->mapped);
}

CKS_FN int cks_thread_key_init(void) {
  if (pthread_key_create(&key, thread_end) != 0) return 0;
  pthread_atfork(fork_prepare, fork_parent, fork_child); /* before process.c's: its child handler runs after */
  return 1;
}
