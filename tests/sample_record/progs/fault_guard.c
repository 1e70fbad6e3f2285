/* What block stepping's fault guard (src/runtime/sample/fault_guard.c)
 * must leave as it was: this program's own SIGSEGV and SIGBUS actions and
 * signal mask, every SIGSEGV sent to it (with its siginfo), and the faults
 * of its own loads, which its handler turns into mappings page by page.
 *
 *   fault_guard PAGES SENDS
 *
 * Reads PAGES pages of a PROT_NONE region one after another, a little
 * branchy work on heap data between them: each first read faults, and the
 * handler makes the page readable, so the program takes exactly one fault
 * a page, at an instruction of its own (the interpreter's reads of the
 * next page, ahead of the thread, fault in the runtime's guard instead).
 * Meanwhile a child sends SENDS SIGSEGVs by sigqueue, one at a time, each
 * acknowledged through a pipe, with the sequence number as its value.
 * Checks its actions and mask all along; exit 0 when all held, else 1 with
 * what went wrong on stderr. */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <ucontext.h>
#include <unistd.h>

#define PAGE 4096

extern const char __executable_start[], etext[];
static char *region;
static long pages;
static volatile long faults, bad_faults, received, bad_received;
static pid_t sender;
static int ack_fd;

static void on_segv(int sig, siginfo_t *si, void *ctx) {
  (void)sig;
  ucontext_t *uc = ctx;
  if (si->si_code == SI_QUEUE) {
    /* the child's, in order, with its value */
    if (si->si_pid != sender || si->si_value.sival_int != received) bad_received++;
    received++;
    char c = 1;
    if (write(ack_fd, &c, 1) != 1) bad_received++;
    return;
  }
  const char *at = si->si_addr, *rip = (const char *)uc->uc_mcontext.gregs[REG_RIP];
  /* a fault of this program's own load, in its own code, on a page not
   * made readable yet */
  if (at < region || at >= region + pages * PAGE || rip < __executable_start || rip >= etext ||
      si->si_code != SEGV_ACCERR) {
    bad_faults++;
    _exit(3);
  }
  faults++;
  mprotect((void *)((unsigned long)at & ~(unsigned long)(PAGE - 1)), PAGE, PROT_READ);
}

static void on_bus(int sig) { (void)sig; }

static struct sigaction want_segv, want_bus;
static sigset_t want_mask;

static int same_action(int sig, const struct sigaction *want) {
  struct sigaction cur;
  if (sigaction(sig, NULL, &cur) != 0) return 0;
  if (cur.sa_flags != want->sa_flags || cur.sa_sigaction != want->sa_sigaction || cur.sa_restorer != want->sa_restorer)
    return 0;
  for (int s = 1; s < 65; s++)
    if (sigismember(&cur.sa_mask, s) != sigismember(&want->sa_mask, s)) return 0;
  return 1;
}

static int same_mask(void) {
  sigset_t cur;
  if (sigprocmask(SIG_BLOCK, NULL, &cur) != 0) return 0;
  for (int s = 1; s < 65; s++)
    if (sigismember(&cur, s) != sigismember(&want_mask, s)) return 0;
  return 1;
}

int main(int argc, char **argv) {
  if (argc != 3) return 2;
  pages = atol(argv[1]);
  long sends = atol(argv[2]);
  memset(&want_segv, 0, sizeof want_segv);
  want_segv.sa_sigaction = on_segv;
  want_segv.sa_flags = SA_SIGINFO | SA_RESTART;
  sigemptyset(&want_segv.sa_mask);
  sigaddset(&want_segv.sa_mask, SIGUSR1);
  memset(&want_bus, 0, sizeof want_bus);
  want_bus.sa_handler = on_bus;
  want_bus.sa_flags = SA_NODEFER;
  sigemptyset(&want_bus.sa_mask);
  sigaddset(&want_bus.sa_mask, SIGUSR2);
  if (sigaction(SIGSEGV, &want_segv, NULL) != 0 || sigaction(SIGBUS, &want_bus, NULL) != 0) return 2;
  /* as the kernel keeps them (glibc adds its restorer) */
  if (sigaction(SIGSEGV, NULL, &want_segv) != 0 || sigaction(SIGBUS, NULL, &want_bus) != 0) return 2;
  sigemptyset(&want_mask);
  sigaddset(&want_mask, SIGUSR2);
  sigaddset(&want_mask, SIGWINCH);
  sigprocmask(SIG_SETMASK, &want_mask, NULL);

  region = mmap(NULL, pages * PAGE, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (region == MAP_FAILED) return 2;
  int to_sender[2], acks[2];
  if (pipe(to_sender) != 0 || pipe(acks) != 0) return 2;
  ack_fd = acks[1];
  sender = fork();
  if (sender == 0) {
    /* one at a time: the next only once the last was taken */
    pid_t parent = getppid();
    alarm(60); /* a signal lost on the way: no acknowledgement ever comes */
    char go;
    if (read(to_sender[0], &go, 1) != 1) _exit(1); /* the parent knows the sender's pid */
    for (long i = 0; i < sends; i++) {
      union sigval v = {.sival_int = (int)i};
      char c;
      if (sigqueue(parent, SIGSEGV, v) != 0 || read(acks[0], &c, 1) != 1) _exit(1);
      for (volatile int spin = 0; spin < 20000; spin++) {
      }
    }
    _exit(0);
  }
  if (write(to_sender[1], "g", 1) != 1) return 2;

  /* heap data for the work between pages: loads the interpreter reads */
  unsigned *heap = malloc(1 << 22);
  if (!heap) return 2;
  for (unsigned i = 0; i < (1u << 20); i++) heap[i] = i * 2654435761u;
  unsigned long sum = 0, checks_failed = 0;
  for (long p = 0; p < pages; p++) {
    for (unsigned k = 0; k < 12; k++) {
      unsigned x = heap[(p * 7919 + k * 104729) & ((1u << 20) - 1)];
      if (x & 1) sum += x >> 3;
      else sum ^= x;
    }
    sum += (unsigned char)*(volatile const char *)(region + p * PAGE + (p & 63) * 8);
    if ((p & 255) == 0 && !(same_action(SIGSEGV, &want_segv) && same_action(SIGBUS, &want_bus) && same_mask()))
      checks_failed++;
  }
  int status = 0;
  waitpid(sender, &status, 0);
  int ok = 1;
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    fprintf(stderr, "the sender failed (status %d) after %ld of %ld acknowledged\n", status, (long)received, sends);
    ok = 0;
  }
  if (received != sends || bad_received) {
    fprintf(stderr, "%ld of %ld SIGSEGVs received, %ld out of order or from elsewhere\n", (long)received, sends,
            (long)bad_received);
    ok = 0;
  }
  if (faults != pages || bad_faults) {
    fprintf(stderr, "%ld faults of the program's own for %ld pages (%ld not its own)\n", (long)faults, pages,
            (long)bad_faults);
    ok = 0;
  }
  if (checks_failed || !same_action(SIGSEGV, &want_segv) || !same_action(SIGBUS, &want_bus) || !same_mask()) {
    fprintf(stderr, "the signal actions or mask changed (%lu checks failed)\n", checks_failed);
    ok = 0;
  }
  printf("%lu\n", sum);
  return ok ? 0 : 1;
}
