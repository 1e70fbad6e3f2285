#include "shapes.h"

double area(enum shape s, double size) {
  switch (s) {
    case SQUARE: return size * size;
    case CIRCLE: return 3.14159 * size * size;
    case TRIANGLE: return size * size / 2;
    default: return -1;
  }
}

int classify(int n) {
  int kind = 0;
  if (n < 0 && n > -1000) kind = -1;
  else if (n == 0) kind = 0;
  else if (n % 2 == 0 || n % 3 == 0) kind = 2;
  else kind = 1;
  for (int i = 0; i < clamp(n, 0, 5); i++)
    if (i == 3) goto done;
done:
  return kind;
}
