/* A program that patches its own code, as hot-patching and some JITs do:
   the child of a fork makes value()'s page writable and writes
   `mov eax, 7; ret` over it, then calls value() (7) and later(), whose
   entry is on the same page (a breakpoint in a page the process wrote
   itself, so only its own copy can be put back). The parent's value() must
   still be 42 afterwards, and so must the next process's (the patch was the
   child's alone). Exits 3; 4 when the child's patch reached the parent, 6
   when an earlier process's patch reached this one, 20 + N when the child
   failed with N. */
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

__attribute__((noinline)) int value(void) { __asm__ volatile(""); return 42; }
__attribute__((noinline)) int later(int x) { __asm__ volatile(""); return x + 1; }

int main(void) {
  int (*volatile f)(void) = value;
  if (f() != 42) return 6;
  pid_t p = fork();
  if (p < 0) return 2;
  if (p == 0) {
    uintptr_t first = (uintptr_t)(void *)value & ~(uintptr_t)4095;
    uintptr_t last = ((uintptr_t)(void *)later + 16) & ~(uintptr_t)4095;
    if (mprotect((void *)first, last - first + 4096, PROT_READ | PROT_WRITE | PROT_EXEC) != 0) _exit(1);
    static const unsigned char seven[] = {0xb8, 7, 0, 0, 0, 0xc3};
    memcpy((void *)(uintptr_t)(void *)value, seven, sizeof seven);
    if (f() != 7) _exit(2);
    if (later(1) != 2) _exit(3);
    _exit(0);
  }
  int status = 0;
  if (waitpid(p, &status, 0) != p || !WIFEXITED(status)) return 2;
  if (WEXITSTATUS(status) != 0) return 20 + WEXITSTATUS(status);
  if (f() != 42) return 4;
  return later(1) == 2 ? 3 : 5;
}
