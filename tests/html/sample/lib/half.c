/* Mostly uncovered: only the first case runs, half_unused() never does. */
#include "helpers.h"

int half_pick(int x) {
  if (x == 1) return 10;
  if (x == 2) return 20;
  if (x == 3) return 30;
  switch (x) {
    case 4:
      return 40;
    case 5:
      return 50;
    default:
      return 0;
  }
}

int half_unused(int y) {
  int z = y - 1;
  return z * z;
}
