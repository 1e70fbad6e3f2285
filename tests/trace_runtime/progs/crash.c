/* Abnormal ends deep inside a recursion: the streams stay readable and hold
 * every event written before. Usage: crash DEPTH MODE (0 _exit, 1 SIGSEGV,
 * 2 SIGKILL) */
#include <signal.h>
#include <stdlib.h>
#include <unistd.h>

static int mode;

void rec(int n) {
  if (n > 1) {
    rec(n - 1);
    return;
  }
  if (mode == 0) _exit(0);
  raise(mode == 1 ? SIGSEGV : SIGKILL);
}

int main(int argc, char **argv) {
  mode = argc > 2 ? atoi(argv[2]) : 0;
  rec(argc > 1 ? atoi(argv[1]) : 10);
  return 0;
}
