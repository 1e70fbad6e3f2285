/* A worker thread started with every signal blocked, as thread pools do
 * (liblzma's for xz -T), so that signals go to the main thread.
 *   pool:    the worker spins 0.3 s and is joined; main only waits
 *   running: main spins 0.3 s and exits while the worker still spins
 *   brief:   the worker blocks SIGPROF for a moment only, then spins 0.3 s */
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "spin.h"

static void *pool_worker(void *arg) {
  spin(*(double *)arg);
  return 0;
}

static void *brief_worker(void *arg) {
  (void)arg;
  sigset_t prof;
  sigemptyset(&prof);
  sigaddset(&prof, SIGPROF);
  pthread_sigmask(SIG_BLOCK, &prof, 0);
  spin(0.005);
  pthread_sigmask(SIG_UNBLOCK, &prof, 0);
  spin(0.3);
  return 0;
}

static pthread_t start_blocked(void *(*fn)(void *), void *arg) {
  sigset_t all, old;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &old);
  pthread_t t;
  pthread_create(&t, 0, fn, arg);
  pthread_sigmask(SIG_SETMASK, &old, 0);
  return t;
}

int main(int argc, char **argv) {
  const char *mode = argc > 1 ? argv[1] : "pool";
  if (strcmp(mode, "pool") == 0) {
    static double seconds = 0.3;
    pthread_join(start_blocked(pool_worker, &seconds), 0);
  } else if (strcmp(mode, "running") == 0) {
    static double forever = 1e9;
    start_blocked(pool_worker, &forever);
    spin(0.3);
    exit(0);
  } else {
    pthread_t t;
    pthread_create(&t, 0, brief_worker, 0);
    pthread_join(t, 0);
  }
  return 0;
}
