// Exceptions thrown inside library calls (std::stoi throws from
// libstdc++, through its hooked frame) and longjmp out of a library call
// (qsort's comparator): the calls after them are still recorded, nested
// right. Usage: libcalls_throw ROUNDS  (prints the answer line)
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>

#include <stdexcept>
#include <string>

static jmp_buf escape;

static int cmp_escape(const void*, const void*) { longjmp(escape, 1); }

static int parse(const std::string& s) {
  try {
    return std::stoi(s);
  } catch (const std::invalid_argument&) {
    return -1;
  }
}

static int jump_out() {
  int v[3] = {3, 1, 2};
  if (setjmp(escape) == 0) {
    qsort(v, 3, sizeof v[0], cmp_escape);
    return 0;
  }
  return 1;
}

int main(int argc, char** argv) {
  int rounds = argc > 1 ? atoi(argv[1]) : 3;
  int bad = 0, jumped = 0;
  for (int i = 0; i < rounds; i++) {
    bad += parse(i % 2 ? "x" : "7") < 0;
    jumped += jump_out();
  }
  printf("%d %d\n", bad, jumped);
  return 0;
}
