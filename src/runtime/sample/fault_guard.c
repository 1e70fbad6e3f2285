/* Reads of the program's memory in place, for block stepping's look-ahead
 * interpreter (block_step.c): a load ahead may name an address the program
 * never mapped (its own next load would fault too), so memory outside the
 * loaded objects and the thread's stack was copied with process_vm_readv,
 * which fails where a read would fault: ~1.3-2.4 us a call on this VM, ~8
 * a vector on bzip2 -9 (its heap). Under the guard a read costs a plain
 * copy: for one handler's run the runtime's own SIGSEGV and SIGBUS
 * actions stand in for the program's, and a fault of the one copy
 * instruction below (rep movsb at cks_guard_copy_at) returns 0 from
 * cks_guard_copy instead (the kernel's exception-table way; no setjmp).
 *
 * What the program sees stays the same:
 *  - its actions are taken and put back with the raw system call, so they
 *    come back bit for bit (handler, flags, mask, restorer);
 *  - its signal mask is the handler's (every signal blocked, handlers.c)
 *    with SIGSEGV and SIGBUS let through while the guard is held (a fault
 *    of a blocked SIGSEGV kills), and exactly that mask again after;
 *  - a SIGSEGV or SIGBUS that is not the copy's fault (sent by kill or
 *    sigqueue, or pending already when the guard is taken) is kept with
 *    its siginfo and queued again to the thread, with that siginfo, once
 *    the program's actions are back: it is delivered when the runtime's
 *    handler returns, as it would have been;
 *  - a fault anywhere else in the thread (a defect of the runtime) gets
 *    the program's actions back before the instruction faults again.
 * Held by one thread at a time, and only in a process that never started
 * a second thread through pthread_create: another thread could change its
 * own actions meanwhile (then lost when the guard puts the old ones back).
 * A thread made by a raw clone that faults meanwhile faults again until
 * the guard is put back (microseconds), then as before.
 *
 * Async-signal-safe; no allocation. */
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/syscall.h>
#include <ucontext.h>
#include <unistd.h>

#include "sample_runtime.h"

/* The kernel's struct sigaction on x86-64 (not glibc's). */
struct guard_kaction {
  void (*handler)(int, siginfo_t *, void *);
  unsigned long flags;
  void (*restorer)(void);
  uint64_t mask;
};
#define GUARD_SA_RESTORER 0x04000000ul
#define GUARD_SET(sig) (1ull << ((sig) - 1))

/* The copy whose fault is recovered, and the signal return of the
 * runtime's own action (SA_RESTORER is required on x86-64). */
int cks_guard_copy(void *dst, const void *src, size_t size);
extern const char cks_guard_copy_at[], cks_guard_copy_fixup[];
void cks_guard_restorer(void);
__asm__(".pushsection .text\n" /* the compiler's own section stays as it was */
        ".p2align 4\n"
        ".globl cks_guard_copy\n"
        ".hidden cks_guard_copy\n"
        ".type cks_guard_copy, @function\n"
        "cks_guard_copy:\n"
        "  mov %rdx, %rcx\n"
        ".globl cks_guard_copy_at\n"
        ".hidden cks_guard_copy_at\n"
        "cks_guard_copy_at:\n"
        "  rep movsb\n"
        "  mov $1, %eax\n"
        "  ret\n"
        ".globl cks_guard_copy_fixup\n"
        ".hidden cks_guard_copy_fixup\n"
        "cks_guard_copy_fixup:\n"
        "  xor %eax, %eax\n"
        "  ret\n"
        ".size cks_guard_copy, .-cks_guard_copy\n"
        ".p2align 4\n"
        ".globl cks_guard_restorer\n"
        ".hidden cks_guard_restorer\n"
        ".type cks_guard_restorer, @function\n"
        "cks_guard_restorer:\n"
        "  mov $15, %eax\n" /* rt_sigreturn */
        "  syscall\n"
        "  hlt\n"
        ".size cks_guard_restorer, .-cks_guard_restorer\n"
        ".popsection\n");

int cks_threads_started; /* atomic; process.c's pthread_create sets it */
static int guard_owner;  /* the tid holding the guard; 0: none */
static struct guard_kaction guard_saved[2]; /* the program's SIGSEGV and SIGBUS actions */
static uint64_t guard_mask;                 /* the thread's mask when the guard was taken */
static int guard_restored;                  /* the program's actions are back already */
static int guard_deferred[2];               /* a signal to queue again (SIGSEGV, SIGBUS) */
static siginfo_t guard_info[2];
static uint64_t guard_faults, guard_held;   /* copies that faulted, signals held (step stats); atomic */

static long guard_action(int sig, const struct guard_kaction *act, struct guard_kaction *old) {
  return syscall(SYS_rt_sigaction, sig, act, old, sizeof(uint64_t));
}

static void guard_put_back(void) {
  guard_action(SIGBUS, &guard_saved[1], NULL);
  guard_action(SIGSEGV, &guard_saved[0], NULL);
  guard_restored = 1;
}

static void guard_on_fault(int sig, siginfo_t *si, void *ctx) {
  ucontext_t *uc = ctx;
  greg_t *g = uc->uc_mcontext.gregs;
  const int saved = errno, me = (int)syscall(SYS_gettid), slot = sig == SIGBUS;
  /* from the kernel, for this instruction (BUS_MCEERR_AO is a memory
   * error reported whenever, not this access's) */
  const int fault = si->si_code > 0 && !(sig == SIGBUS && si->si_code == BUS_MCEERR_AO);
  if (__atomic_load_n(&guard_owner, __ATOMIC_ACQUIRE) != me) {
    /* another thread (a raw clone's): its fault comes again, and a signal
     * sent to it is queued again, until the guard is put back */
    if (!fault) syscall(SYS_rt_tgsigqueueinfo, getpid(), me, sig, si);
    errno = saved;
    return;
  }
  if (fault && g[REG_RIP] == (greg_t)(uintptr_t)cks_guard_copy_at) {
    g[REG_RIP] = (greg_t)(uintptr_t)cks_guard_copy_fixup;
    __atomic_add_fetch(&guard_faults, 1, __ATOMIC_RELAXED);
    return;
  }
  if (!fault) {
    /* one pending instance, as the kernel keeps a standard signal */
    if (!guard_deferred[slot]) {
      memcpy(&guard_info[slot], si, sizeof *si);
      guard_deferred[slot] = 1;
      __atomic_add_fetch(&guard_held, 1, __ATOMIC_RELAXED);
    }
    return;
  }
  /* the runtime's own fault: the program's actions decide, as without it */
  guard_put_back();
  errno = saved;
}

CKS_FN int cks_guard_begin(int tid) {
  int none = 0;
  if (__atomic_load_n(&cks_threads_started, __ATOMIC_RELAXED) ||
      !__atomic_compare_exchange_n(&guard_owner, &none, tid, 0, __ATOMIC_ACQ_REL, __ATOMIC_RELAXED))
    return 0;
  int saved = errno;
  struct guard_kaction ours = {guard_on_fault, SA_SIGINFO | GUARD_SA_RESTORER, cks_guard_restorer, ~0ull};
  guard_restored = 0;
  guard_deferred[0] = guard_deferred[1] = 0;
  int ok = guard_action(SIGSEGV, &ours, &guard_saved[0]) == 0;
  if (ok && guard_action(SIGBUS, &ours, &guard_saved[1]) != 0) {
    guard_action(SIGSEGV, &guard_saved[0], NULL);
    ok = 0;
  }
  /* let the faults through; pending ones reach guard_on_fault, which keeps them */
  uint64_t let = GUARD_SET(SIGSEGV) | GUARD_SET(SIGBUS);
  if (ok && syscall(SYS_rt_sigprocmask, SIG_UNBLOCK, &let, &guard_mask, sizeof let) != 0) {
    guard_put_back();
    ok = 0;
  }
  errno = saved;
  if (!ok) __atomic_store_n(&guard_owner, 0, __ATOMIC_RELEASE);
  return ok;
}

CKS_FN void cks_guard_end(int tid) {
  int saved = errno;
  /* the mask first: what arrives from now on waits for the handler's return */
  syscall(SYS_rt_sigprocmask, SIG_SETMASK, &guard_mask, NULL, sizeof guard_mask);
  if (!guard_restored) guard_put_back();
  static const int sigs[2] = {SIGSEGV, SIGBUS};
  for (int i = 0; i < 2; i++)
    if (guard_deferred[i]) syscall(SYS_rt_tgsigqueueinfo, getpid(), tid, sigs[i], &guard_info[i]);
  guard_deferred[0] = guard_deferred[1] = 0;
  errno = saved;
  __atomic_store_n(&guard_owner, 0, __ATOMIC_RELEASE);
}

CKS_FN uint64_t cks_guard_faults(void) { return __atomic_load_n(&guard_faults, __ATOMIC_RELAXED); }
CKS_FN uint64_t cks_guard_held(void) { return __atomic_load_n(&guard_held, __ATOMIC_RELAXED); }
