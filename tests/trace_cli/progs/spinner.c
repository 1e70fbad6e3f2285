/* Threads that call a tiny function without pause, so that a thread stopped
 * at any instant is often inside its entry's NOPs: the case covkit trace
 * attach must handle when it patches a running process (a thread left in
 * the middle of GCC's five one-byte NOPs would run the tail of the call's
 * bytes). Runs for SECONDS, then prints the calls made and exits 0.
 * Usage: spinner THREADS SECONDS */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <errno.h>
#include <time.h>

static volatile int stop;

__attribute__((noinline)) long leaf(long x) { return x + 1; }

static void *spin(void *arg) {
  long *calls = arg;
  while (!stop) *calls = leaf(*calls);
  return NULL;
}

int main(int argc, char **argv) {
  int threads = argc > 1 ? atoi(argv[1]) : 2;
  double seconds = argc > 2 ? atof(argv[2]) : 2.0;
  if (threads < 1 || threads > 64) return 2;
  pthread_t t[64];
  long calls[64] = {0};
  for (int i = 0; i < threads; i++) pthread_create(&t[i], NULL, spin, &calls[i]);
  printf("pid started\n");
  fflush(stdout);
  struct timespec ts = {(time_t)seconds, (long)((seconds - (time_t)seconds) * 1e9)};
  while (nanosleep(&ts, &ts) != 0) { /* the switch signal interrupts it: sleep the rest */
  }
  stop = 1;
  long total = 0;
  for (int i = 0; i < threads; i++) {
    pthread_join(t[i], NULL);
    total += calls[i];
  }
  printf("calls %ld\n", total);
  return 0;
}
