/* Exits with the status given as its argument, from a function of its own. */
#include <stdlib.h>

__attribute__((noinline)) void leave(int status) { exit(status); }

int main(int argc, char **argv) {
  leave(argc > 1 ? atoi(argv[1]) : 0);
}
