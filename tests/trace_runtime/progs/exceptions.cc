// Exceptions thrown through several frames. With g++ the exit hooks run
// during unwinding; with clang++ they do not, and the runtime must close the
// skipped frames itself. Usage: exceptions ROUNDS DEPTH
#include <cstdio>
#include <cstdlib>

extern "C" {
// Not empty: GCC drops the calls of an empty function (no side effect),
// which -pg builds (unlike -finstrument-functions ones) would show.
void after(void) { __asm__ __volatile__(""); }
void tail(void) { __asm__ __volatile__(""); }

void thrower(int n) {
  if (n == 0) throw n;
  thrower(n - 1);
}

// Odd rounds call after() once caught; even ones return straight away (the
// skipped frames are then closed by catcher's own exit).
void catcher(int round, int depth) {
  try {
    thrower(depth);
  } catch (int) {
    if (round % 2) after();
  }
}

// Calls through a pointer from one call site: cb_ok after cb_throw's frames
// were left by an exception must not nest under them.
void cb_throw(int depth) { thrower(depth); }
void cb_ok(int depth) { (void)depth; }
typedef void (*callback)(int);
void run_callbacks(void) {
  static callback volatile list[4] = {cb_throw, cb_ok, cb_throw, cb_ok};
  for (int i = 0; i < 4; i++) {
    try {
      list[i](2);
    } catch (int) {
    }
  }
}
}

int main(int argc, char **argv) {
  int rounds = argc > 1 ? atoi(argv[1]) : 3, depth = argc > 2 ? atoi(argv[2]) : 5;
  for (int r = 1; r <= rounds; r++) catcher(r, depth);
  tail();
  run_callbacks();
  std::puts("done");
  return 0;
}
