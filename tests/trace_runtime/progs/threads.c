/* Threads: one stream each, names set after the thread started (the last
 * `thread` line wins), one thread ending with pthread_exit from deep inside.
 * Usage: threads NTHREADS */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

/* Not empty: GCC drops the calls of an empty function (no side effect),
 * which -pg builds (unlike -finstrument-functions ones) would show. */
void work(void) { __asm__ __volatile__(""); }

void *worker(void *arg) {
  int i = (int)(long)arg;
  char name[16];
  snprintf(name, sizeof name, "worker-%d", i);
  pthread_setname_np(pthread_self(), name);
  for (int k = 0; k <= i; k++) work();
  return NULL;
}

void level2(void) { pthread_exit(NULL); }
void level1(void) { level2(); }
void *quitter(void *arg) {
  (void)arg;
  pthread_setname_np(pthread_self(), "quitter");
  level1();
  return NULL;
}

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 3;
  pthread_t th[64];
  for (int i = 0; i < n; i++) pthread_create(&th[i], NULL, worker, (void *)(long)i);
  for (int i = 0; i < n; i++) pthread_join(th[i], NULL);
  pthread_t q;
  pthread_create(&q, NULL, quitter, NULL);
  pthread_join(q, NULL);
  puts("done");
  return 0;
}
