/* Loads plugin.so (argv[1]) twice with a dlclose in between, calls into it. */
#include <dlfcn.h>
#include <stdio.h>

/* Not empty: GCC drops the calls of an empty function (no side effect),
 * which -pg builds (unlike -finstrument-functions ones) would show. */
void local(void) { __asm__ __volatile__(""); }

static int call(const char *path, int n) {
  void *h = dlopen(path, RTLD_NOW);
  if (!h) {
    fprintf(stderr, "%s\n", dlerror());
    return -1;
  }
  int (*entry)(int) = (int (*)(int))dlsym(h, "plug_entry");
  int r = entry(n);
  dlclose(h);
  return r;
}

int main(int argc, char **argv) {
  if (argc < 2) return 2;
  if (call(argv[1], 5) != 5) return 1;
  local();
  if (call(argv[1], 2) != 2) return 1;
  puts("done");
  return 0;
}
