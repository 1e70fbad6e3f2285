/* Burns 0.2 s, then becomes argv[1] with the rest of the arguments. */
#include <unistd.h>

#include "spin.h"

int main(int argc, char **argv) {
  spin(0.2);
  if (argc > 1) execv(argv[1], argv + 1);
  return 99;
}
