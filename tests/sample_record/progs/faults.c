/* The look-ahead interpreter's reads in place (src/runtime/sample/
 * in_place_reads.c) against what the program itself does with SIGSEGV.
 *
 *   faults MODE SECONDS
 *
 * Every mode walks a chain through heap memory for SECONDS of CPU time
 * (the loads the interpreter reads ahead of the thread). MODE:
 *   plain    nothing else (the program's dispositions are the default ones)
 *   handler  its own SIGSEGV handler, and every 4th step a load from a
 *            PROT_NONE page that the handler recovers from (siglongjmp
 *            back to the walk, which goes on);
 *            it checks that the handler saw exactly the faults it made, and
 *            that sigaction() reported its own handler each time
 *   device   maps /dev/zero first (a character device)
 *   blocked  SIGSEGV and SIGBUS blocked
 *   threads  its own SIGSEGV handler and a second thread (waiting)
 *   threads_faulting  its own SIGSEGV handler, recovering from the faults
 *            of both threads: the walk's as in handler, and a second thread
 *            that faults on the guard page and recovers, over and over
 *   threads_asking  the default dispositions, and a second thread that asks
 *            sigaction() for SIGSEGV's and SIGBUS's over and over: it must
 *            never see anything but the default
 * Exit 0 when the program saw what it made, 2 when it did not. */
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#define NODES (1u << 20)

/* each thread's own: a fault recovered goes back to the thread that made it */
static __thread sigjmp_buf recover;
static __thread volatile sig_atomic_t handled;
static volatile unsigned char *guard;
/* what the walk changes, kept in memory across siglongjmp */
static volatile uint32_t at, made, reported = 1;
static volatile uint64_t sum, steps;

static void on_segv(int sig) {
  (void)sig;
  handled++;
  siglongjmp(recover, 1);
}

static double cpu_seconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int own_handler_reported(void) {
  struct sigaction cur;
  return sigaction(SIGSEGV, NULL, &cur) == 0 && !(cur.sa_flags & SA_SIGINFO) && cur.sa_handler == on_segv;
}

static void *waiting(void *arg) {
  pause();
  return arg;
}

static volatile int stop;
static int second_ok; /* what the second thread returns when it saw what it should */

/* Faults on the guard page until told to stop: arg when its handler saw
 * exactly the faults it made. */
static void *faulter(void *arg) {
  static volatile uint32_t made_here, sink; /* kept across siglongjmp */
  sigsetjmp(recover, 0);
  while (!__atomic_load_n(&stop, __ATOMIC_RELAXED)) {
    made_here++;
    sink += guard[made_here & 4095];
  }
  return (uint32_t)handled == made_here ? arg : NULL;
}

/* Asks for the dispositions until told to stop: arg when they were always
 * the default ones. */
static void *asking(void *arg) {
  int other = 0;
  while (!__atomic_load_n(&stop, __ATOMIC_RELAXED)) {
    struct sigaction cur;
    if (sigaction(SIGSEGV, NULL, &cur) != 0 || cur.sa_handler != SIG_DFL) other++;
    if (sigaction(SIGBUS, NULL, &cur) != 0 || cur.sa_handler != SIG_DFL) other++;
  }
  return other ? NULL : arg;
}

int main(int argc, char **argv) {
  const char *mode = argc > 1 ? argv[1] : "plain";
  double seconds = argc > 2 ? atof(argv[2]) : 0.4;
  static int two_faulting; /* static: kept across siglongjmp */
  two_faulting = !strcmp(mode, "threads_faulting");
  int faulting = !strcmp(mode, "handler") || two_faulting;
  if (faulting || !strcmp(mode, "threads")) {
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_segv;
    sa.sa_flags = SA_NODEFER; /* siglongjmp out of it without restoring the mask */
    sigaction(SIGSEGV, &sa, NULL);
  }
  if (!strcmp(mode, "device")) {
    FILE *zero = fopen("/dev/zero", "r");
    if (!zero || mmap(NULL, 4096, PROT_READ, MAP_PRIVATE, fileno(zero), 0) == MAP_FAILED) return 1;
  }
  if (!strcmp(mode, "blocked")) {
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGSEGV);
    sigaddset(&set, SIGBUS);
    sigprocmask(SIG_BLOCK, &set, NULL);
  }
  pthread_t other;
  if (!strcmp(mode, "threads") && pthread_create(&other, NULL, waiting, NULL) != 0) return 1;
  guard = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  uint32_t *next = malloc(NODES * sizeof *next);
  if (guard == MAP_FAILED || !next) return 1;
  if (two_faulting && pthread_create(&other, NULL, faulter, &second_ok) != 0) return 1;
  static int two_asking;
  two_asking = !strcmp(mode, "threads_asking");
  if (two_asking && pthread_create(&other, NULL, asking, &second_ok) != 0) return 1;
  /* one cycle through the nodes, in a scattered order */
  for (uint32_t i = 0; i < NODES; i++) next[i] = (uint32_t)((i * 2654435761u + 12345u) & (NODES - 1));
  /* a fault recovered comes back here, and the walk goes on */
  sigsetjmp(recover, 0);
  while (cpu_seconds() < seconds) {
    for (int k = 0; k < 4096; k++) {
      at = next[at];
      sum += at & 7 ? at : at >> 3;
      if (faulting && (++steps & 3) == 0) {
        made++;
        sum += guard[at & 4095];
      }
    }
    if (faulting) reported &= own_handler_reported();
  }
  void *second_saw = &second_ok;
  if (two_faulting || two_asking) {
    __atomic_store_n(&stop, 1, __ATOMIC_RELAXED);
    pthread_join(other, &second_saw);
  }
  printf("%llu %u %u\n", (unsigned long long)sum, (unsigned)made, (unsigned)handled);
  if (!second_saw) return 2;
  if (faulting && ((uint32_t)handled != made || !reported)) return 2;
  return 0;
}
