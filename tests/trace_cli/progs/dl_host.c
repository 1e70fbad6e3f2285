/* Loads PLUGIN with dlopen ROUNDS times (dlclose between), calling its
 * plug_work(N) each time: plug_work runs ROUNDS times, plug_static and
 * plug_leaf ROUNDS * N times. With "wait", it first prints "waiting" and
 * reads its standard input to a newline or its end: the test attaches
 * meanwhile, however long that takes, and then says go.
 * Usage: dl_host PLUGIN ROUNDS N [wait] */
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
  if (argc < 4) return 2;
  int rounds = atoi(argv[2]), n = atoi(argv[3]);
  long total = 0;
  if (argc > 4) {
    printf("waiting\n");
    fflush(stdout);
    for (int c; (c = getchar()) != '\n';) {
      if (c != EOF) continue;
      if (!ferror(stdin) || errno != EINTR) break;
      clearerr(stdin); /* a signal (the switch): read on */
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
