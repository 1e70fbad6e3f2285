/* A library of the program's own, built without instrumentation: its
 * functions are library calls of libcalls_main (through its PLT); its own
 * calls into libc are not recorded (its PLT is not hooked), as uftrace
 * leaves them out without --nest-libcall. */
#include <stdlib.h>
#include <string.h>

int own_square(int v) { return v * v + (int)strlen(""); }
int own_sum(const char *s) { return atoi(s) + abs(-1); }
