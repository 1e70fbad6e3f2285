/* Static functions defined in headers (headers_first.h, headers_second.h)
   and in the unit itself: gprof labels them with a file in its index, taken
   from BFD's line lookup, which names a DWARF 5 sequence's rows before its
   first DW_LNS_set_file after the unit (file entry 0), not after file 1. */
#include <stdio.h>
#include <stdlib.h>

#include "headers_first.h"
#include "headers_second.h"

static unsigned churn(unsigned seed, long n) {
  unsigned acc = seed;
  for (long i = 0; i < n; i++) acc = fold(acc, scramble((unsigned)i, 8));
  return acc;
}

int main(int argc, char** argv) {
  long n = argc > 1 ? atol(argv[1]) : 400000;
  unsigned total = 0;
  for (unsigned s = 0; s < 4; s++) total ^= churn(s, n);
  printf("%u\n", total);
  return 0;
}
