#include <cstdio>
#include "util.h"

constexpr int squared(int x) { return x * x; }
static_assert(squared(4) == 16, "constexpr");

template <bool B>
int branchy(int x) {
  if constexpr (B) {
    return x + 1;
  } else {
    return x - 1;
  }
}

int main(int argc, char **argv) {
  (void)argv;
  int total = 0;
#include "body.inc"
  auto add = [&](int v) { total += v > 0 ? v : -v; };
  for (int i = 0; i < argc; ++i) add(i % 2 ? i : -i);
  total += pick(1, argc, argc > 2) + int(pick(1.5, 2.5, argc == 1));
  const int xs[] = {1, -2, 3, argc};
  total += int(count_if_positive(xs)) + squared(argc);
  total += CLAMP_ABS(argc - 4, 2) + branchy<true>(argc) + branchy<false>(argc);
#if 0
  total = -1;
#endif
  total += argc > 1 && (argc < 3 || argc > 6) ? used_inline(total) : other(total);
  std::printf("%d\n", total);
  return 0;
}
