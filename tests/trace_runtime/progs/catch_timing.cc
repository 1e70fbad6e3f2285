// A catch followed by a pause in code that is not instrumented: the -pg
// runtime hooks the catching function again at the catch, so its exit is
// recorded when it returns, not at the next instrumented call (30 ms later).
// Also a rethrow and a nested catch. Prints "done".
#include <cstdio>
#include <ctime>

extern "C" {
__attribute__((noinline)) void thrower(int n) {
  if (n == 0) throw n;
  thrower(n - 1);
}
__attribute__((noinline)) void rethrower(int n) {
  try {
    thrower(n);
  } catch (...) {
    throw;
  }
}
__attribute__((noinline)) void catcher(void) {
  try {
    thrower(3);
  } catch (int) {
  }
  try {
    rethrower(2);
  } catch (int) {
  }
}
__attribute__((noinline)) void later(void) { __asm__ __volatile__(""); }
}

// Inlined, so that the pause calls nothing instrumented.
static inline __attribute__((always_inline)) double now_s(void) {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

int main() {
  catcher();
  double t0 = now_s();
  while (now_s() - t0 < 0.03) {
  }
  later();
  std::puts("done");
  return 0;
}
