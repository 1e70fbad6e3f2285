/* A server built with -fprofile-instr-generate -fcoverage-mapping for the
 * clang live tests: it reads commands from stdin and answers "ok" to each.
 *   work K      runs the workload K times (branches, a switch, indirect calls)
 *   write FILE  writes its profile to FILE with its own runtime
 *   reset       zeroes its counters with its own runtime
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int __llvm_profile_write_file(void);
void __llvm_profile_set_filename(const char *);
void __llvm_profile_reset_counters(void);

static int twice(int v) { return v + v; }
static int square(int v) { return v * v; }
static int (*const ops[])(int) = {twice, square};

static int step(int i) {
  int s = 0;
  switch (i % 4) {
    case 0: s = ops[0](i); break;
    case 1: s = ops[1](i); break;
    case 2: s = i > 5 && i < 100 ? 1 : 2; break;
    default: s = -i;
  }
  return s;
}

static volatile long sink;

int main(void) {
  char line[4096];
  setvbuf(stdout, NULL, _IOLBF, 0);
  while (fgets(line, sizeof line, stdin)) {
    line[strcspn(line, "\n")] = 0;
    if (strncmp(line, "work ", 5) == 0) {
      int k = atoi(line + 5);
      for (int i = 0; i < k; ++i) sink += step(i);
    } else if (strncmp(line, "write ", 6) == 0) {
      __llvm_profile_set_filename(line + 6);
      if (__llvm_profile_write_file() != 0) puts("write failed");
    } else if (strcmp(line, "reset") == 0) {
      __llvm_profile_reset_counters();
    } else if (strcmp(line, "quit") == 0) {
      break;
    }
    puts("ok");
  }
  return 0;
}
