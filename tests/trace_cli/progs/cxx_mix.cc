// C++ names and exceptions for the covkit trace CLI tests (run_trace_cli.py).
// Exceptions thrown DEPTH frames deep are caught in main, which then calls
// f() > g(): with clang++ no exit hook runs while unwinding, so the runtime
// must close the thrown-through frames before f's enter (edge main -> f,
// depth 3). Then template functions and operators (names to quote in DOT,
// escape in SVG).
// Usage: cxx_mix ROUNDS DEPTH
#include <cstdio>
#include <cstdlib>

namespace geo {
struct Vec {
  int x, y;
  Vec operator+(const Vec &o) const { return Vec{x + o.x, y + o.y}; }
  bool operator==(const Vec &o) const { return x == o.x && y == o.y; }
};

template <typename T>
T twice(T v) {
  return v + v;
}

Vec &operator<<(Vec &v, int dx) {
  v.x += dx;
  return v;
}

long operator""_km(unsigned long long n) { return (long)n * 1000; }
}  // namespace geo

int thrower(int n) {
  if (n == 0) throw n;
  return thrower(n - 1) + 1;
}

void g() {}
void f() { g(); }

int main(int argc, char **argv) {
  int rounds = argc > 1 ? (int)std::strtol(argv[1], nullptr, 10) : 3;
  int depth = argc > 2 ? (int)std::strtol(argv[2], nullptr, 10) : 6;
  int caught = 0;
  for (int r = 0; r < rounds; r++) {
    try {
      thrower(depth);
    } catch (int) {
      caught++;
      f();
    }
  }
  f();
  geo::Vec v{1, 2};
  for (int i = 0; i < 5; i++) v = geo::twice(v);
  int s = geo::twice(3);
  bool same = v == geo::Vec{32, 64};
  v << 1 << 2;
  using geo::operator""_km;
  long km = 7_km;
  std::printf("%d %d %d %d %ld\n", caught, v.x, s, (int)same, km);
  return 0;
}
