/* Blocks every signal, SIGTRAP included, in a thread and in a handler's
   mask, then runs functions that carry int3s. A blocked SIGTRAP from an
   int3 kills a process, so the runtime must keep SIGTRAP deliverable; the
   program must still see SIGTRAP as it left it. Exit 0 when all went well. */
#include <pthread.h>
#include <signal.h>

__attribute__((noinline)) int in_blocked_thread(void) { __asm__ volatile(""); return 1; }
__attribute__((noinline)) int in_handler(void) { __asm__ volatile(""); return 2; }
__attribute__((noinline)) int while_blocked(void) { __asm__ volatile(""); return 3; }
__attribute__((noinline)) int never(void) { __asm__ volatile(""); return 4; }

static volatile sig_atomic_t handled;
static void on_usr1(int sig) { (void)sig; handled = in_handler(); }
static void *body(void *arg) { (void)arg; return (void *)(long)in_blocked_thread(); }

int main(int argc, char **argv) {
  (void)argv;
  sigset_t all, now;
  sigfillset(&all);
  if (pthread_sigmask(SIG_BLOCK, &all, NULL) != 0) return 10;
  pthread_t t;
  void *r;
  if (pthread_create(&t, NULL, body, NULL) != 0 || pthread_join(t, &r) != 0 || r != (void *)1) return 11;
  if (while_blocked() != 3) return 12;
  if (sigprocmask(SIG_SETMASK, &all, NULL) != 0 || sigprocmask(SIG_BLOCK, NULL, &now) != 0) return 13;
  if (sigprocmask(SIG_UNBLOCK, &all, NULL) != 0) return 14;
  struct sigaction sa = {0};
  sa.sa_handler = on_usr1;
  sigfillset(&sa.sa_mask);
  if (sigaction(SIGUSR1, &sa, NULL) != 0) return 15;
  raise(SIGUSR1);
  if (handled != 2) return 16;
  struct sigaction cur;
  if (sigaction(SIGTRAP, NULL, &cur) != 0 || cur.sa_handler != SIG_DFL) return 17;
  if (argc > 5) return never();
  return 0;
}
