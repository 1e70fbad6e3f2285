/* Profiles itself with ITIMER_PROF and its own SIGPROF handler: it must see
 * its own ticks, whatever the sampler does. Exit 0 when it did. Each phase
 * burns half a second of CPU: on a loaded VM the kernel's CPU-time timers
 * fire far below their rate (a 1 ms ITIMER_PROF gave 2 ticks in 0.3 s of
 * CPU while the test suite ran), and both the sampler's ticks before the
 * handler and the program's after it must come. */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/time.h>

#include "spin.h"

static volatile sig_atomic_t ticks;
static void on_prof(int sig) {
  (void)sig;
  ticks++;
}

int main(void) {
  spin(0.5);
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_prof;
  sa.sa_flags = SA_RESTART;
  sigaction(SIGPROF, &sa, 0);
  struct itimerval it = {{0, 1000}, {0, 1000}};
  setitimer(ITIMER_PROF, &it, 0);
  spin(0.5);
  printf("ticks %d\n", (int)ticks);
  return ticks > 0 ? 0 : 1;
}
