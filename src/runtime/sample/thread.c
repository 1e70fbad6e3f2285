/* Per-thread state: one mmap per thread (the record buffer of the signal
 * handlers, so they never allocate), its stack range, and its CPU-time
 * timer. New threads are caught by wrapping pthread_create (the state is
 * created by the parent, started by the child before the program's thread
 * function runs: process.c); a pthread key destructor deletes the timer when
 * the thread ends. */
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "sample_runtime.h"

static __thread struct cks_thread *self __attribute__((tls_model("initial-exec")));
static pthread_key_t key;

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
  if (!t->timer_ok) return;
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
  t->timer_ok = timer_create(CLOCK_THREAD_CPUTIME_ID, &sev, &t->timer) == 0;
  if (!t->timer_ok) cks_warn("timer_create(CLOCK_THREAD_CPUTIME_ID) failed: a thread was not sampled");
  __atomic_signal_fence(__ATOMIC_SEQ_CST);
  self = t;
  pthread_setspecific(key, t);
  cks_thread_arm(t);
}

static void thread_end(void *p) {
  struct cks_thread *t = p;
  if (t->timer_ok) timer_delete(t->timer);
  cks_block_step_end(t);
  self = NULL; /* a pending tick or trap finds no state and leaves */
  __atomic_signal_fence(__ATOMIC_SEQ_CST);
  munmap(t, t->mapped);
}

CKS_FN int cks_thread_key_init(void) { return pthread_key_create(&key, thread_end) == 0; }
