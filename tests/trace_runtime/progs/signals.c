/* Signals: a timer handler (traced) interrupts a busy recursion, also inside
 * the hooks; handler events raised inside a hook are dropped and counted as
 * lost. Prints the number of handler calls. */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/time.h>

static volatile sig_atomic_t calls;

void on_signal(int sig) {
  (void)sig;
  calls++;
}

int fib(int n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }

int main(void) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_signal;
  sigaction(SIGALRM, &sa, NULL);
  struct itimerval it = {{0, 50}, {0, 50}};
  setitimer(ITIMER_REAL, &it, NULL);
  int r = 0;
  for (int i = 0; i < 20; i++) r += fib(18);
  struct itimerval off = {{0, 0}, {0, 0}};
  setitimer(ITIMER_REAL, &off, NULL);
  printf("%d %d\n", r, (int)calls);
  return 0;
}
