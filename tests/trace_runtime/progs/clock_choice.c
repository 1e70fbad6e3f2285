/* Drives the runtime's clock choice (ckt_clock_choose in
 * src/runtime/trace/clock.c, compiled in with this file) with what a machine
 * might say, and prints "tsc REASON" or "mono REASON".
 * Usage: clock_choice auto|tsc|mono HAS_TSC INVARIANT CLOCKSOURCE CPU_FLAGS */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clock.h"

int main(int argc, char **argv) {
  if (argc != 6) return 2;
  int choice = strcmp(argv[1], "tsc") == 0 ? CKT_CLOCK_TSC : strcmp(argv[1], "mono") == 0 ? CKT_CLOCK_MONO : CKT_CLOCK_AUTO;
  const char *reason = "";
  int tsc = ckt_clock_choose(choice, atoi(argv[2]), atoi(argv[3]), argv[4], argv[5], &reason);
  printf("%s %s\n", tsc ? "tsc" : "mono", reason);
  return 0;
}
