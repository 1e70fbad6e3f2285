/* dlopen argv[1] and call its lib_used, dlclose it, then dlopen argv[2]
   (the same code in another file, so most likely mapped where the first
   was) and call its lib_unused: the recorder must forget the first file's
   breakpoints and plant the second's. */
#include <dlfcn.h>

static int call(const char* path, const char* name) {
  void* h = dlopen(path, RTLD_NOW);
  if (!h) return -1;
  int (*f)(int) = (int (*)(int))dlsym(h, name);
  int r = f ? f(1) : -1;
  dlclose(h);
  return r;
}

int main(int argc, char** argv) {
  if (argc < 3) return 10;
  if (call(argv[1], "lib_used") != 2) return 11;
  if (call(argv[2], "lib_unused") != 3) return 12;
  return 0;
}
