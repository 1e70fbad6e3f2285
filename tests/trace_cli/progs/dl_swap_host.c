/* Loads each LIB in turn (dlopen, calls, dlclose): its entry(N) is called by
 * the main thread and by a worker thread that lives across the loads, so
 * both threads have the functions of the library before in their tables.
 * Libraries of the same size are usually mapped where the one closed
 * before was: prints "same" when every entry was at the first one's
 * address, else "moved". Usage: dl_swap_host N LIB... */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static pthread_barrier_t ready, done;
static int (*entry)(int);
static int n, stop;

static void *worker(void *arg) {
  (void)arg;
  for (;;) {
    pthread_barrier_wait(&ready);
    if (stop) return NULL;
    entry(n);
    pthread_barrier_wait(&done);
  }
}

int main(int argc, char **argv) {
  if (argc < 3) return 2;
  n = atoi(argv[1]);
  pthread_barrier_init(&ready, NULL, 2);
  pthread_barrier_init(&done, NULL, 2);
  pthread_t w;
  pthread_create(&w, NULL, worker, NULL);
  void *first = NULL;
  int same = 1;
  for (int i = 2; i < argc; i++) {
    void *h = dlopen(argv[i], RTLD_NOW);
    if (!h) {
      fprintf(stderr, "%s\n", dlerror());
      return 1;
    }
    entry = (int (*)(int))dlsym(h, "entry");
    if (!first) first = (void *)entry;
    same &= (void *)entry == first;
    entry(n);
    pthread_barrier_wait(&ready);
    pthread_barrier_wait(&done);
    dlclose(h);
  }
  stop = 1;
  pthread_barrier_wait(&ready);
  pthread_join(w, NULL);
  puts(same ? "same" : "moved");
  return 0;
}
