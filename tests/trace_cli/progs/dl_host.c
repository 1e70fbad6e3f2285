/* Loads PLUGIN with dlopen ROUNDS times (dlclose between), calling its
 * plug_work(N) each time: plug_work runs ROUNDS times, plug_static and
 * plug_leaf ROUNDS * N times. With WAIT_MS, it first prints "waiting" and
 * sleeps that long (time to attach). Usage: dl_host PLUGIN ROUNDS N [WAIT_MS] */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

int main(int argc, char **argv) {
  if (argc < 4) return 2;
  int rounds = atoi(argv[2]), n = atoi(argv[3]);
  long total = 0;
  if (argc > 4) {
    long ms = atol(argv[4]);
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000};
    printf("waiting\n");
    fflush(stdout);
    while (nanosleep(&ts, &ts) != 0) { /* a signal: sleep the rest */
    }
  }
  for (int r = 0; r < rounds; r++) {
    void *h = dlopen(argv[1], RTLD_NOW);
    if (!h) {
      fprintf(stderr, "%s\n", dlerror());
      return 1;
    }
    long (*work)(int) = (long (*)(int))dlsym(h, "plug_work");
    if (!work) return 1;
    total += work(n);
    dlclose(h);
  }
  printf("%ld\n", total);
  return 0;
}
