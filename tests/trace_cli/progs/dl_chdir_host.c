/* dlopen of LIB as given (a relative path), chdir("/"), then entry(3) (the
 * runtime first meets the library after the chdir), a dlopen of libm (the
 * load map changes) and a first call of a function (later: the map is read
 * again), then entry(4). Prints entry's and later's sum: 20 for
 * dl_swap_a.c. Usage: dl_chdir_host ./LIB */
#include <dlfcn.h>
#include <stdio.h>
#include <unistd.h>

__attribute__((noinline)) int later(int x) { return x + 7; }

int main(int argc, char **argv) {
  if (argc < 2) return 2;
  void *h = dlopen(argv[1], RTLD_NOW);
  if (!h) {
    fprintf(stderr, "%s\n", dlerror());
    return 1;
  }
  int (*entry)(int) = (int (*)(int))dlsym(h, "entry");
  if (chdir("/") != 0) return 1;
  int r = entry(3);
  void *m = dlopen("libm.so.6", RTLD_NOW);
  r += later(1);
  r += entry(4);
  printf("%d\n", r);
  if (m) dlclose(m);
  dlclose(h);
  return 0;
}
