/* The instrumented part of the test server: deterministic work whose counts
   are known from the commands sent (see control.c). */
#include <stdio.h>
#include <string.h>

void control_loop(void);
void lib_touch(int n);

static int classify(int i) {
  if (i % 15 == 0) return 3;
  if (i % 5 == 0) return 2;
  if (i % 3 == 0) return 1;
  return 0;
}

static volatile long sink;

void job(int i) {
  switch (classify(i)) {
    case 3: sink += 15; break;
    case 2: sink += 5; break;
    case 1: sink += 3; break;
    default: sink += 1;
  }
  for (int k = 0; k < i % 7; k++) sink ^= k;
}

int main(void) {
  setvbuf(stdout, NULL, _IOLBF, 0);
  for (int i = 0; i < 10; i++) job(i);
  lib_touch(3);
  control_loop();
  return 0;
}
