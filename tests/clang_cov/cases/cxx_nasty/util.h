#pragma once
#include <cstddef>

#define ABS(x) ((x) < 0 ? -(x) : (x))
#define MAX(a, b) ((a) > (b) ? (a) : (b))
#define CLAMP_ABS(x, hi) MAX(ABS(x), hi)

template <typename T>
T pick(T a, T b, bool first) {
  if (first && a != b) return a;
  return b > a ? b : a;
}

template <typename T, std::size_t N>
constexpr std::size_t count_if_positive(const T (&xs)[N]) {
  std::size_t n = 0;
  for (std::size_t i = 0; i < N; ++i)
    if (xs[i] > 0) ++n;
  return n;
}

inline int unused_inline(int x) { return x ? x * 2 : 7; }
inline int used_inline(int x) { return x > 3 && x < 100 ? 1 : 0; }

int other(int x);
