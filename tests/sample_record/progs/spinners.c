/* argv[2] threads besides main, each burning argv[1] seconds of CPU: a
 * process to attach to while it runs. Prints "spinning" once its threads
 * are started: a test's cue that the program runs (its exec over). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "spin.h"

static double seconds;

static void *body(void *arg) {
  (void)arg;
  spin(seconds);
  return 0;
}

int main(int argc, char **argv) {
  seconds = argc > 1 ? atof(argv[1]) : 3;
  int n = argc > 2 ? atoi(argv[2]) : 0;
  pthread_t t[16];
  if (n > 16) n = 16;
  for (int i = 0; i < n; ++i) pthread_create(&t[i], 0, body, 0);
  printf("spinning\n");
  fflush(stdout);
  spin(seconds);
  for (int i = 0; i < n; ++i) pthread_join(t[i], 0);
  return 0;
}
