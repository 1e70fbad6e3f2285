/* Library calls with counts known by construction (covkit trace record
 * records them through the PLT, as uftrace does): libc's printf, strtod,
 * strlen (an IFUNC: named strlen, not its implementation), isalpha's
 * __ctype_b_loc, qsort calling back into the program, usleep (its time is
 * not main's own), and a library of the program's own that is not
 * instrumented (libcalls_lib.c), through its PLT too; a plugin loaded with
 * dlopen (instrumented: its own library calls are recorded when it runs).
 * Usage: libcalls_main ROUNDS [PLUGIN]  (prints the answer line) */
#include <ctype.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int own_square(int v);   /* libcalls_lib.c, uninstrumented */
int own_sum(const char *s);

static int count_alpha(const char *s) {
  int n = 0;
  for (; *s; s++)
    if (isalpha((unsigned char)*s)) n++;
  return n;
}

static int by_value(const void *a, const void *b) { return *(const int *)a - *(const int *)b; }

int main(int argc, char **argv) {
  int rounds = argc > 1 ? atoi(argv[1]) : 3;
  const char *volatile abc = "abc"; /* not a constant: strlen is called, not folded */
  double total = 0;
  for (int i = 0; i < rounds; i++) total += strtod("2.5", NULL) + (double)strlen(abc);
  int v[4] = {3, 1, 2, 0};
  qsort(v, 4, sizeof v[0], by_value);
  int squares = 0;
  for (int i = 0; i < rounds; i++) squares += own_square(i);
  usleep(20000);
  int plugged = 0;
  if (argc > 2) {
    void *h = dlopen(argv[2], RTLD_LAZY);
    if (!h) return 2;
    int (*work)(int) = (int (*)(int))dlsym(h, "plug_work");
    plugged = work(rounds);
    dlclose(h);
  }
  printf("%g %d %d %d %d %d\n", total, count_alpha("ab1c"), v[0], squares, own_sum("123"), plugged);
  return 0;
}
