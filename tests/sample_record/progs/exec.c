/* Burns 0.2 s, then becomes argv[1] with the rest of the arguments (by
 * execvp's search of PATH when COVKIT_TEST_EXEC_SEARCH is set). */
#include <stdlib.h>
#include <unistd.h>

#include "spin.h"

int main(int argc, char **argv) {
  spin(0.2);
  if (argc > 1) {
    if (getenv("COVKIT_TEST_EXEC_SEARCH")) execvp(argv[1], argv + 1);
    else execv(argv[1], argv + 1);
  }
  return 99;
}
