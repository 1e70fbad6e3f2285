/* Takes the address of a function of plt_lib.so in code (a -no-pie build
 * makes its PLT entry the function's canonical address), calls it through
 * the pointer and through lib_caller. Usage: plt_main */
#include <stdio.h>

void lib_fn(void);
void lib_caller(void);
void (*volatile fp)(void);

int main(void) {
  fp = lib_fn;
  fp();
  lib_caller();
  puts("done");
  return 0;
}
