#include <cstdio>
#include <cstdlib>

#include "box.hpp"
#include "shapes.h"

int main(int argc, char** argv) {
  int n = argc > 1 ? std::atoi(argv[1]) : 3;
  double a = area(n % 2 ? SQUARE : CIRCLE, n);
  int k = classify(n);
  int b = fill_boxes(n);
  std::printf("%d %.2f %d %d\n", n, a, k, b);
  if (n > 100) return clamp(n, 0, 1);  // never in the tests
  return 0;
}
