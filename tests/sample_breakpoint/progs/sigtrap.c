/* The program's own SIGTRAPs, from raise() and from an int3 of its own,
   must reach its handler: exit 0 only when the handler ran twice. */
#include <signal.h>

static volatile sig_atomic_t traps;
__attribute__((noinline)) void on_trap(int sig) { (void)sig; traps++; }

int main(void) {
  struct sigaction sa = {0};
  sa.sa_handler = on_trap;
  sigemptyset(&sa.sa_mask);
  if (sigaction(SIGTRAP, &sa, 0) != 0) return 10;
  raise(SIGTRAP);
  __asm__ volatile("int3");
  return traps == 2 ? 0 : 20 + traps;
}
