// Recording filters and the on/off switch (covkit trace record -F/-N/-T,
// --signal): a call tree known by construction, mirrored in
// run_trace_cli.py (filters_tree). Every function is noipa so that each
// call is a real one at -O2 and with -pg.
//   filters ROUNDS [signal]
#include <csignal>
#include <cstdio>
#include <cstdlib>

#if defined(__clang__)
#define KEEP __attribute__((noinline))
#else
#define KEEP __attribute__((noipa))
#endif

namespace ns {
KEEP int tiny(int x) { return x * 3; }
}  // namespace ns

KEEP int leaf(int x) { return x + 1; }
KEEP int helper(int x) {
  int s = 0;
  for (int i = 0; i < 3; i++) s += leaf(x + i);
  return s + ns::tiny(x);
}
KEEP int work(int x) { return helper(x) + leaf(x); }
KEEP int quiet(int x) { return helper(x) * 2; }
KEEP void on() { __asm__ volatile(""); }
KEEP void off() { __asm__ volatile(""); }

int main(int argc, char** argv) {
  int rounds = argc > 1 ? std::atoi(argv[1]) : 2;
  long s = 0;
  for (int i = 0; i < rounds; i++) {
    s += work(i);
    s += quiet(i);
  }
  on();
  s += work(100);
  off();
  s += work(101);
  if (argc > 2) {  // the runtime's --signal handler toggles tracing
    std::raise(SIGUSR2);
    s += work(7);
    std::raise(SIGUSR2);
    s += work(8);
  }
  std::printf("%ld\n", s);
  return 0;
}
