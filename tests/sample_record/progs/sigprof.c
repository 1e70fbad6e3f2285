/* Profiles itself with ITIMER_PROF and its own SIGPROF handler: it must see
 * its own ticks, whatever the sampler does. Exit 0 when it did. */
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
  spin(0.1);
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_prof;
  sa.sa_flags = SA_RESTART;
  sigaction(SIGPROF, &sa, 0);
  struct itimerval it = {{0, 1000}, {0, 1000}};
  setitimer(ITIMER_PROF, &it, 0);
  spin(0.3);
  printf("ticks %d\n", (int)ticks);
  return ticks > 0 ? 0 : 1;
}
