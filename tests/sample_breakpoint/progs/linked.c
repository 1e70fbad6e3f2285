/* Calls lib_used() of the library it is linked with, and dlopens argv[1]
   to call its lib_used() too. */
#include <dlfcn.h>

int lib_used(int x);

int main(int argc, char** argv) {
  if (argc < 2) return 10;
  if (lib_used(1) != 2) return 11;
  void* plugin = dlopen(argv[1], RTLD_NOW);
  if (!plugin) return 12;
  int (*f)(int) = (int (*)(int))dlsym(plugin, "lib_used");
  if (!f || f(2) != 3) return 13;
  return 0;
}
