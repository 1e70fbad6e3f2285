/* The signal handlers: the CPU-time tick (SIGPROF) takes the IP and the
 * frame-pointer stack, and in branch mode sets the trap flag; each single-
 * step trap (SIGTRAP) appends the new IP until the vector of taken branches
 * is full, the step cap is reached, or the next instruction would enter the
 * kernel (stepping across a syscall could leave TF set while the program
 * blocks SIGTRAP, which the kernel answers by killing it). The tick timer
 * is one-shot and re-armed only here; when the program takes SIGPROF for
 * itself, every timer is deleted before its disposition is in (thread.c,
 * process.c), and a tick still on its way is ignored here. */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <sys/syscall.h>
#include <ucontext.h>
#include <unistd.h>

#include "sample_runtime.h"

#define TRAP_FLAG 0x100
#ifndef TRAP_PERF
#define TRAP_PERF_CODE 6 /* <linux/signal.h>: a perf event with sigtrap (glibc 2.36 lacks the name) */
#else
#define TRAP_PERF_CODE TRAP_PERF
#endif

static int warned_trap_taken, warned_trap_blocked;

/* A breakpoint hit while SIGTRAP was blocked: inside the runtime's own
 * handler, so in a handler of the program that interrupted it (running
 * the same code on another frame). The kernel then delivers the signal
 * late, with TRAP_PERF_FLAG_ASYNC in si_perf_flags, at wherever the
 * thread is by then: maybe the very stop just handled, which would count
 * twice. glibc's siginfo_t has no si_perf_flags: the kernel's layout puts
 * it at byte 36 (si_addr at 16, then si_perf_data, si_perf_type). */
#define SI_PERF_FLAGS_AT 36
#define PERF_FLAG_ASYNC 1u
_Static_assert(sizeof(siginfo_t) >= SI_PERF_FLAGS_AT + 4, "siginfo_t too small for si_perf_flags");

static int perf_trap_async(const siginfo_t *si) {
  uint32_t flags;
  memcpy(&flags, (const char *)si + SI_PERF_FLAGS_AT, sizeof flags);
  return (flags & PERF_FLAG_ASYNC) != 0;
}

static void put32(uint64_t *rec, int at, uint32_t v) { memcpy((char *)rec + at, &v, 4); }

static uint64_t *stack_area(struct cks_thread *t) { return t->record + CKS_SAMPLE_FIXED / 8; }

/* Return addresses by the frame-pointer chain, reading only [rsp, stack
 * top) of the thread's own stack: code without frame pointers yields a
 * short or meaningless chain, never a fault. */
static void walk_stack(struct cks_thread *t, const greg_t *g) {
  uint64_t *out = stack_area(t);
  uint32_t n = 0;
  uintptr_t lo = (uintptr_t)g[REG_RSP], hi = t->stack_hi, fp = (uintptr_t)g[REG_RBP];
  if (lo >= t->stack_lo && lo < hi) {
    while (n < CKS_MAX_STACK && fp >= lo && fp <= hi - 16 && (fp & 7) == 0) {
      const uint64_t *frame = (const uint64_t *)fp;
      if (frame[1] == 0) break;
      out[n++] = frame[1];
      if (frame[0] <= fp) break;
      fp = (uintptr_t)frame[0];
    }
  }
  t->nstack = n;
}

static uint64_t stats_vectors, stats_ns, stats_traps, stats_moves, stats_loops, stats_returns, stats_predicted,
    stats_copies, stats_decodes, stats_faulted, stats_zydis; /* atomic */

/* Each vector's cost in 1 us buckets (the last: 1 ms and more): the
 * median is not moved by the rare vector that costs milliseconds (a large
 * copy single-stepped to the step cap), which the mean is. */
#define STATS_BUCKETS 1000
static uint32_t stats_histogram[STATS_BUCKETS]; /* atomic */

static uint64_t stats_median_ns(void) {
  uint64_t total = __atomic_load_n(&stats_vectors, __ATOMIC_RELAXED), seen = 0;
  for (uint32_t i = 0; i < STATS_BUCKETS; i++) {
    seen += __atomic_load_n(&stats_histogram[i], __ATOMIC_RELAXED);
    if (total && 2 * seen >= total) return i * 1000ull + 500;
  }
  return 0;
}

static uint64_t thread_cpu_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

CKS_FN void cks_write_step_stats(void) {
  if (!cks_cfg.step_stats) return;
  char text[256], name[16];
  if (cks_cfg.block_step == CKS_BP_SLOTS && !cks_cfg.look_ahead)
    strcpy(name, "decode");
  else if (cks_cfg.block_step == CKS_BP_SLOTS)
    strcpy(name, "block");
  else if (cks_cfg.block_step)
    snprintf(name, sizeof name, "block%u", cks_cfg.block_step);
  else
    strcpy(name, "instruction");
  snprintf(text, sizeof text,
           "stepping cost (%s): %llu vectors, %llu ns, %llu traps, %llu register moves, %llu counted loops, "
           "%llu returns known, %llu steps predicted, %llu lines copied, %llu ns median, %llu decoded, "
           "%llu faulted, %llu beyond the quick decoder",
           name, (unsigned long long)__atomic_load_n(&stats_vectors, __ATOMIC_RELAXED),
           (unsigned long long)__atomic_load_n(&stats_ns, __ATOMIC_RELAXED),
           (unsigned long long)__atomic_load_n(&stats_traps, __ATOMIC_RELAXED),
           (unsigned long long)__atomic_load_n(&stats_moves, __ATOMIC_RELAXED),
           (unsigned long long)__atomic_load_n(&stats_loops, __ATOMIC_RELAXED),
           (unsigned long long)__atomic_load_n(&stats_returns, __ATOMIC_RELAXED),
           (unsigned long long)__atomic_load_n(&stats_predicted, __ATOMIC_RELAXED),
           (unsigned long long)__atomic_load_n(&stats_copies, __ATOMIC_RELAXED),
           (unsigned long long)stats_median_ns(),
           (unsigned long long)__atomic_load_n(&stats_decodes, __ATOMIC_RELAXED),
           (unsigned long long)__atomic_load_n(&stats_faulted, __ATOMIC_RELAXED),
           (unsigned long long)__atomic_load_n(&stats_zydis, __ATOMIC_RELAXED));
  cks_warn(text);
}

static void emit(struct cks_thread *t, uint32_t stop) {
  cks_block_step_done(t);
  if (cks_cfg.step_stats && t->nsteps > 1) {
    __atomic_add_fetch(&stats_vectors, 1, __ATOMIC_RELAXED);
    uint64_t ns = thread_cpu_ns() - t->tick_ns;
    __atomic_add_fetch(&stats_ns, ns, __ATOMIC_RELAXED);
    __atomic_add_fetch(&stats_histogram[ns / 1000 < STATS_BUCKETS ? ns / 1000 : STATS_BUCKETS - 1], 1, __ATOMIC_RELAXED);
    __atomic_add_fetch(&stats_traps, t->traps, __ATOMIC_RELAXED);
    __atomic_add_fetch(&stats_moves, t->bp_moves, __ATOMIC_RELAXED);
    __atomic_add_fetch(&stats_loops, t->loops, __ATOMIC_RELAXED);
    __atomic_add_fetch(&stats_returns, t->returns, __ATOMIC_RELAXED);
    __atomic_add_fetch(&stats_predicted, t->predicted, __ATOMIC_RELAXED);
    __atomic_add_fetch(&stats_copies, t->copies, __ATOMIC_RELAXED);
    __atomic_add_fetch(&stats_decodes, t->decodes, __ATOMIC_RELAXED);
    __atomic_add_fetch(&stats_faulted, t->faulted, __ATOMIC_RELAXED);
    __atomic_add_fetch(&stats_zydis, t->zydis_decodes, __ATOMIC_RELAXED);
  }
  uint64_t *rec = t->record;
  put32(rec, CKS_SAMPLE_TID, (uint32_t)t->tid);
  put32(rec, CKS_SAMPLE_NSTACK, t->nstack);
  put32(rec, CKS_SAMPLE_NSTEPS, t->nsteps);
  put32(rec, CKS_SAMPLE_TAKEN, t->taken);
  memcpy((char *)rec + CKS_SAMPLE_IP, &t->ip, 8);
  uint32_t size = CKS_SAMPLE_FIXED + 8u * (t->nstack + t->nsteps);
  cks_write_record(rec, size, CKS_KIND_SAMPLE, (uint16_t)stop);
  t->stepping = 0;
  cks_thread_arm(t);
}

/* What the interpreter may use of the trap's signal frame, while it lasts. */
static void trap_start(struct cks_thread *t, ucontext_t *uc) {
  t->la_fpregs = uc->uc_mcontext.fpregs;
  t->la_mask = &uc->uc_sigmask;
  t->la_in_place = -1;
}

static void trap_end(struct cks_thread *t) {
  if (t->la_in_place == 1) cks_in_place_end(t);
  t->la_in_place = 0;
  t->la_fpregs = NULL; /* the frame ends with this handler */
  t->la_mask = NULL;
}

/* Steps on (block or single), writing the vector if it ends on the way. */
static void step_on(struct cks_thread *t, greg_t *g) {
  uint32_t stop = cks_block_step(t, g);
  if (stop) emit(t, stop);
}

/* A tick while the vector single-steps: every instruction under the trap
 * flag traps, so a whole tick of the thread's CPU time without a trap means
 * the flag is gone: the program left the stepped instruction through a
 * signal handler of its own that did not return (a fault recovered with
 * siglongjmp: the kernel clears the flag for the handler, and the context
 * that held it is never restored). The vector is dropped, as a breakpoint
 * never reached drops it; without this the thread waited for a step that
 * never came, and was never sampled again. 1: dropped. */
static int single_step_tick(struct cks_thread *t) {
  const int stepped = t->traps != t->traps_at_tick;
  t->traps_at_tick = t->traps;
  if (stepped) return 0;
  cks_block_step_done(t);
  t->stepping = 0;
  return 1;
}

static void on_tick(int sig, siginfo_t *si, void *ctx) {
  (void)sig;
  struct cks_thread *t = cks_self();
  if (!t || si->si_code != SI_TIMER || cks_ticks_stopped()) return;
  if (t->stepping) {
    /* the timer is a watchdog while a vector is stepped */
    int dropped;
    if (t->waiting_bp) {
      t->traps_at_tick = t->traps; /* single steps after the stop count from here */
      dropped = cks_block_step_tick(t);
    } else {
      dropped = single_step_tick(t);
    }
    if (!dropped) cks_thread_arm(t);
    if (t->stepping) return;
  }
  ucontext_t *uc = ctx;
  greg_t *g = uc->uc_mcontext.gregs;
  t->ip = (uint64_t)g[REG_RIP];
  t->nsteps = t->taken = 0;
  walk_stack(t, g);
  if (!cks_cfg.branch_mode) {
    emit(t, 0);
    return;
  }
  if (sigismember(&uc->uc_sigmask, SIGTRAP)) {
    cks_warn_once(&warned_trap_blocked, "the program blocked SIGTRAP: some samples have no steps");
    emit(t, CKS_SAMPLE_STOP_BLOCKED);
    return;
  }
  if (!cks_handlers_ours(SIGTRAP)) {
    cks_warn_once(&warned_trap_taken,
                  "the program installed its own SIGTRAP handler: samples from then on have no steps");
    emit(t, CKS_SAMPLE_STOP_BLOCKED);
    return;
  }
  if (cks_cfg.step_stats) t->tick_ns = thread_cpu_ns();
  cks_steps_area(t)[0] = t->ip;
  t->nsteps = 1;
  t->prev = t->ip;
  if (cks_enters_kernel(t->ip)) {
    emit(t, CKS_SAMPLE_STOP_SYSCALL);
    return;
  }
  t->stepping = 1;
  t->bp_hits = 0;
  t->traps = t->bp_moves = t->loops = t->returns = t->predicted = t->copies = t->decodes = t->faulted = 0;
  t->traps_at_tick = 0;
  t->zydis_decodes = 0;
  trap_start(t, uc);
  step_on(t, g);
  trap_end(t);
  /* The timer is a watchdog while the vector waits for a stop or a step
   * (single_step_tick, cks_block_step_tick). A vector the look-ahead
   * interpreter completed here was written, and the timer armed for the
   * next tick, already: one system call less. */
  if (t->stepping) cks_thread_arm(t);
}

static void on_trap(int sig, siginfo_t *si, void *ctx) {
  (void)sig;
  ucontext_t *uc = ctx;
  greg_t *g = uc->uc_mcontext.gregs;
  struct cks_thread *t = cks_self();
  if (si->si_code == TRAP_PERF_CODE && t) {
    if (perf_trap_async(si)) {
      /* not a stop of the thread's own way; a counted loop's count may
       * hold passes on that other frame */
      t->loop_foreign = 1;
      return;
    }
    /* the hardware breakpoint of block stepping (or one left armed) */
    if (t->stepping) {
      t->traps++;
      trap_start(t, uc);
      uint32_t stop = cks_block_step_hit(t, g);
      trap_end(t);
      if (stop == CKS_STEP_DROPPED) {
        cks_block_step_done(t);
        t->stepping = 0;
        cks_thread_arm(t);
      } else if (stop) {
        emit(t, stop);
      }
    }
    return;
  }
  if (!t || !t->stepping || t->waiting_bp) {
    if (si->si_code == TRAP_TRACE) { /* a step left over (a thread ending, TF pushed by pushf) */
      g[REG_EFL] &= ~TRAP_FLAG;
      return;
    }
    /* Not a step: the program's own int3 or raise(SIGTRAP). What would
     * have happened without the runtime happens: the default action, once
     * this handler returns and SIGTRAP is unblocked. */
    cks_default_action(SIGTRAP);
    return;
  }
  g[REG_EFL] &= ~TRAP_FLAG;
  t->traps++;
  uint32_t stop = cks_append_step(t, (uint64_t)g[REG_RIP], cks_instruction_length(t->prev));
  trap_start(t, uc);
  if (stop)
    emit(t, stop);
  else
    step_on(t, g);
  trap_end(t);
}

CKS_FN int cks_handlers_ours(int sig) {
  struct sigaction cur;
  if (sigaction(sig, NULL, &cur) != 0 || !(cur.sa_flags & SA_SIGINFO)) return 0;
  return cur.sa_sigaction == (sig == SIGPROF ? on_tick : on_trap);
}

CKS_FN int cks_is_tick_handler(const struct sigaction *act) {
  return (act->sa_flags & SA_SIGINFO) && act->sa_sigaction == on_tick;
}

static int install(int sig, void (*fn)(int, siginfo_t *, void *)) {
  struct sigaction sa, old;
  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = fn;
  sa.sa_flags = SA_SIGINFO | SA_RESTART;
  /* Every signal waits while the runtime's handler runs: a handler of the
   * program nested in it would run the code being stepped with the
   * breakpoints half moved (a counted loop's head armed, its way out not
   * yet: the head counted the other frame's passes unseen). */
  sigfillset(&sa.sa_mask);
  /* (SIGSEGV and SIGBUS included: in_place_reads.c unblocks them only while
   * its reads are in place.) */
  if (sigaction(sig, NULL, &old) == 0 && old.sa_handler != SIG_DFL) {
    cks_warn(sig == SIGPROF ? "the program had a SIGPROF handler before the runtime started: not sampled"
                            : "the program had a SIGTRAP handler before the runtime started: pc samples only");
    return 0;
  }
  return sigaction(sig, &sa, NULL) == 0;
}

CKS_FN int cks_install_handlers(void) {
  if (!install(SIGPROF, on_tick)) return 0;
  if (cks_cfg.branch_mode && !install(SIGTRAP, on_trap)) cks_cfg.branch_mode = 0;
  if (cks_cfg.branch_mode) cks_block_step_init();
  cks_in_place_init();
  return 1;
}
