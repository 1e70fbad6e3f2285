/* Breakpoint mode's SIGTRAP: an int3 that fires while SIGTRAP is blocked,
 * or while another handler owns it, kills the program (the kernel forces
 * the default action). So in breakpoint mode the runtime keeps SIGTRAP its
 * own and deliverable: the program's sigaction() and signal() on SIGTRAP
 * are recorded, not applied (its handler is called for every SIGTRAP that
 * is not a planted int3, and sigaction() reports it back), and SIGTRAP is
 * taken out of every mask the program blocks (sigprocmask, pthread_sigmask,
 * a handler's sa_mask). Code that blocks signals with raw system calls
 * (glibc's own thread start, posix_spawn's child) is out of reach: that is
 * why system libraries are never planted. Outside breakpoint mode every
 * wrapper is the libc call itself, told first to whoever watches SIGPROF's
 * disposition (process.c: the tick timers stop before the program's
 * handler is in). */
#include <dlfcn.h>
#include <signal.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "sample_runtime.h"

typedef int (*sigaction_fn)(int, const struct sigaction *, struct sigaction *);
typedef int (*mask_fn)(int, const sigset_t *, sigset_t *);
typedef sighandler_t (*signal_fn)(int, sighandler_t);

static sigaction_fn real_sigaction;
static mask_fn real_sigprocmask, real_pthread_sigmask;
static signal_fn real_signal;
static struct sigaction program_trap; /* the program's SIGTRAP disposition, SIG_DFL at first */
/* Who takes planted int3s (breakpoints.c, through cks_install_trap_handler):
 * a pointer rather than a call, so that this file depends on nothing above it. */
static cks_trap_fn planted_trap;
static cks_prof_fn prof_changing; /* atomic */
static signal_fn real_bsd_signal, real_sysv_signal, real_sigset;

static void resolve(void) {
  if (real_sigaction) return;
  real_signal = (signal_fn)dlsym(RTLD_NEXT, "signal");
  real_sigprocmask = (mask_fn)dlsym(RTLD_NEXT, "sigprocmask");
  real_pthread_sigmask = (mask_fn)dlsym(RTLD_NEXT, "pthread_sigmask");
  real_bsd_signal = (signal_fn)dlsym(RTLD_NEXT, "bsd_signal");
  real_sysv_signal = (signal_fn)dlsym(RTLD_NEXT, "sysv_signal");
  real_sigset = (signal_fn)dlsym(RTLD_NEXT, "sigset");
  __atomic_store_n(&real_sigaction, (sigaction_fn)dlsym(RTLD_NEXT, "sigaction"), __ATOMIC_RELEASE);
}

static int guarding(void) { return __atomic_load_n(&cks_bp_active, __ATOMIC_ACQUIRE); }

/* A SIGTRAP that is not a planted int3: what the program asked for. */
static void pass_on(int sig, siginfo_t *si, void *ctx) {
  struct sigaction p = program_trap;
  if (p.sa_flags & SA_RESETHAND) {
    memset(&program_trap, 0, sizeof program_trap);
    program_trap.sa_handler = SIG_DFL;
  }
  if (p.sa_flags & SA_SIGINFO) {
    if (p.sa_sigaction) p.sa_sigaction(sig, si, ctx);
    return;
  }
  if (p.sa_handler == SIG_IGN && si->si_code != SI_KERNEL) return; /* an ignored kill() */
  if (p.sa_handler != SIG_DFL && p.sa_handler != SIG_IGN) {
    p.sa_handler(sig);
    return;
  }
  cks_default_action(sig); /* an int3 ignores SIG_IGN too */
}

CKS_FN void cks_default_action(int sig) {
  resolve();
  struct sigaction dfl;
  memset(&dfl, 0, sizeof dfl);
  dfl.sa_handler = SIG_DFL;
  if (real_sigaction) real_sigaction(sig, &dfl, NULL);
  syscall(SYS_tgkill, getpid(), syscall(SYS_gettid), sig);
}

static void on_trap(int sig, siginfo_t *si, void *ctx) {
  if (!planted_trap(sig, si, ctx)) pass_on(sig, si, ctx);
}

CKS_FN int cks_install_trap_handler(cks_trap_fn planted) {
  resolve();
  planted_trap = planted;
  if (!real_sigaction || !real_sigprocmask || !real_pthread_sigmask || !real_signal) return 0;
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = on_trap;
  /* SIGTRAP stays deliverable inside the handler (a program's handler it
   * calls may run planted code); the asynchronous signals wait. */
  sa.sa_flags = SA_SIGINFO | SA_RESTART | SA_NODEFER;
  sigfillset(&sa.sa_mask);
  sigdelset(&sa.sa_mask, SIGTRAP);
  sigdelset(&sa.sa_mask, SIGSEGV);
  sigdelset(&sa.sa_mask, SIGBUS);
  sigdelset(&sa.sa_mask, SIGILL);
  sigdelset(&sa.sa_mask, SIGFPE);
  /* A disposition inherited across exec (SIG_IGN) stays the program's. */
  if (real_sigaction(SIGTRAP, &sa, &program_trap) != 0) return 0;
  sigset_t trap;
  sigemptyset(&trap);
  sigaddset(&trap, SIGTRAP);
  real_pthread_sigmask(SIG_UNBLOCK, &trap, NULL);
  return 1;
}

CKS_FN void cks_watch_prof_disposition(cks_prof_fn changing) {
  resolve();
  __atomic_store_n(&prof_changing, changing, __ATOMIC_RELEASE);
}

static void prof_set(int sig, const struct sigaction *act) {
  cks_prof_fn fn = __atomic_load_n(&prof_changing, __ATOMIC_ACQUIRE);
  if (sig == SIGPROF && act && fn) fn(act);
}

/* A handler given to signal() and the like, as the sigaction it becomes. */
static void prof_set_handler(int sig, sighandler_t handler) {
  if (sig != SIGPROF) return;
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = handler;
  prof_set(sig, &sa);
}

CKS_API int sigaction(int sig, const struct sigaction *act, struct sigaction *old) {
  resolve();
  if (!real_sigaction) return -1;
  prof_set(sig, act);
  if (!guarding()) return real_sigaction(sig, act, old);
  if (sig == SIGTRAP) {
    if (old) *old = program_trap;
    if (act) program_trap = *act;
    return 0;
  }
  if (!act || !sigismember(&act->sa_mask, SIGTRAP)) return real_sigaction(sig, act, old);
  struct sigaction copy = *act;
  sigdelset(&copy.sa_mask, SIGTRAP);
  return real_sigaction(sig, &copy, old);
}

CKS_API sighandler_t signal(int sig, sighandler_t handler) {
  resolve();
  if (!real_signal) return SIG_ERR;
  prof_set_handler(sig, handler);
  if (!guarding() || sig != SIGTRAP) return real_signal(sig, handler);
  struct sigaction sa, old;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = handler;
  sa.sa_flags = SA_RESTART; /* glibc's signal(): BSD semantics */
  sigemptyset(&sa.sa_mask);
  sigaction(sig, &sa, &old);
  return old.sa_flags & SA_SIGINFO ? (sighandler_t)(void *)old.sa_sigaction : old.sa_handler;
}

/* The other ways to set a handler in glibc (their SIGTRAP is not guarded:
 * breakpoint mode's programs use sigaction and signal). */
CKS_API sighandler_t bsd_signal(int sig, sighandler_t handler) {
  resolve();
  if (!real_bsd_signal) return SIG_ERR;
  prof_set_handler(sig, handler);
  return real_bsd_signal(sig, handler);
}

CKS_API sighandler_t sysv_signal(int sig, sighandler_t handler) {
  resolve();
  if (!real_sysv_signal) return SIG_ERR;
  prof_set_handler(sig, handler);
  return real_sysv_signal(sig, handler);
}

CKS_API sighandler_t sigset(int sig, sighandler_t handler) {
  resolve();
  if (!real_sigset) return SIG_ERR;
  if (handler != SIG_HOLD) prof_set_handler(sig, handler); /* SIG_HOLD only blocks it */
  return real_sigset(sig, handler);
}

static const sigset_t *without_trap(int how, const sigset_t *set, sigset_t *copy) {
  if (!set || how == SIG_UNBLOCK || !guarding() || !sigismember(set, SIGTRAP)) return set;
  *copy = *set;
  sigdelset(copy, SIGTRAP);
  return copy;
}

CKS_API int sigprocmask(int how, const sigset_t *set, sigset_t *old) {
  resolve();
  if (!real_sigprocmask) return -1;
  sigset_t copy;
  return real_sigprocmask(how, without_trap(how, set, &copy), old);
}

CKS_API int pthread_sigmask(int how, const sigset_t *set, sigset_t *old) {
  resolve();
  if (!real_pthread_sigmask) return -1;
  sigset_t copy;
  return real_pthread_sigmask(how, without_trap(how, set, &copy), old);
}
