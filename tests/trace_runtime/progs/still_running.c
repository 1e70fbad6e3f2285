/* Threads still running when the process exits: their open calls must stay
 * in the trace (also under min time, which holds enters back), and a name
 * given after the thread's first event must be recorded.
 * Usage: still_running */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static int block_fds[2];
static volatile int spin;

void quick(void) { spin++; }

void blocker(void) {
  char c;
  for (;;)
    if (read(block_fds[0], &c, 1) <= 0) pause();
}

void *waiter(void *arg) {
  (void)arg;
  quick();
  pthread_setname_np(pthread_self(), "late-name");
  blocker();
  return NULL;
}

void *plain(void *arg) {
  (void)arg;
  quick();
  return NULL;
}

void finish(void) {
  usleep(30000);  /* long enough for any min time the test sets */
  exit(0);
}

int main(void) {
  if (pipe(block_fds) != 0) return 2;
  pthread_t a, b;
  pthread_create(&a, NULL, waiter, NULL);
  pthread_create(&b, NULL, plain, NULL);
  pthread_join(b, NULL);
  usleep(30000);
  printf("done\n");
  finish();
  return 0;
}
