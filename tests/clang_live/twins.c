/* Two modules with one file name: dlopen()s DIR/a/libtwin.so and
   DIR/b/libtwin.so (argv[1], argv[2]: the same source built twice, with
   -DTWIN=1 and -DTWIN=2), calls each one's twin() a different number of
   times, says "ready" and waits for its stdin to close. */
#include <dlfcn.h>
#include <stdio.h>

int main(int argc, char** argv) {
  if (argc != 3) return 2;
  for (int i = 1; i <= 2; ++i) {
    void* h = dlopen(argv[i], RTLD_NOW | RTLD_LOCAL);
    if (!h) {
      fprintf(stderr, "%s\n", dlerror());
      return 1;
    }
    int (*twin)(int) = (int (*)(int))dlsym(h, "twin");
    if (!twin) return 1;
    for (int n = 0; n < i * 3; ++n) twin(n);
  }
  printf("ready\n");
  fflush(stdout);
  while (getchar() != EOF) {
  }
  return 0;
}
