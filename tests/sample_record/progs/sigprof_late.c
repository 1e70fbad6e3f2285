/* Takes SIGPROF for itself mid-run, while three threads run, and counts
 * the SIGPROF it receives from then on: it raises none, so each one is a
 * tick of the sampler that reached its handler. Exit 0 when none did.
 * Before that it asks for SIGPROF's disposition and sets it back as it was
 * (what a library saving and restoring it does): sampling must go on.
 *   sigprof_late sigaction|signal */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "spin.h"

static volatile sig_atomic_t received;
static pthread_barrier_t installed, started;

static void on_prof(int sig) {
  (void)sig;
  received++;
}

static void *worker(void *arg) {
  (void)arg;
  spin(0.2);
  pthread_barrier_wait(&started);
  pthread_barrier_wait(&installed);
  spin(0.2);
  return NULL;
}

int main(int argc, char **argv) {
  struct sigaction old;
  sigaction(SIGPROF, NULL, &old);
  sigaction(SIGPROF, &old, NULL);
  pthread_barrier_init(&started, NULL, 3);
  pthread_barrier_init(&installed, NULL, 3);
  pthread_t th[2];
  for (int i = 0; i < 2; i++) pthread_create(&th[i], NULL, worker, NULL);
  spin(0.2);
  pthread_barrier_wait(&started); /* every thread has run, its tick armed */
  if (argc > 1 && strcmp(argv[1], "signal") == 0) {
    signal(SIGPROF, on_prof);
  } else {
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_prof;
    sa.sa_flags = SA_RESTART;
    sigaction(SIGPROF, &sa, NULL);
  }
  pthread_barrier_wait(&installed);
  spin(0.2);
  for (int i = 0; i < 2; i++) pthread_join(th[i], NULL);
  printf("received %d\n", (int)received);
  return received == 0 ? 0 : 1;
}
