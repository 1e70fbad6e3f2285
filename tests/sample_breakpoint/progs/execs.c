/* Calls before_exec(), then becomes argv[1]. */
#include <unistd.h>

__attribute__((noinline)) int before_exec(void) { __asm__ volatile(""); return 1; }
__attribute__((noinline)) int after_failed_exec(void) { __asm__ volatile(""); return 2; }

int main(int argc, char** argv) {
  if (argc < 2) return 10;
  before_exec();
  execv(argv[1], argv + 1);
  return 10 + after_failed_exec();
}
