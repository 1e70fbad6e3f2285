/* Runs THREADS (default 300) short threads one after the other, each
 * calling leaf() ten times: a trace with more thread streams than a low
 * limit of open files, of which one is alive at a time. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

__attribute__((noinline)) int leaf(int x) { return x + 1; }

static void* run(void* arg) {
  long s = 0;
  for (int i = 0; i < 10; i++) s += leaf(i);
  return (void*)(s + (long)arg * 0);
}

int main(int argc, char** argv) {
  const int threads = argc > 1 ? atoi(argv[1]) : 300;
  for (int i = 0; i < threads; i++) {
    pthread_t t;
    if (pthread_create(&t, NULL, run, NULL) != 0) return 1;
    pthread_join(t, NULL);
  }
  printf("%d threads\n", threads);
  return 0;
}
