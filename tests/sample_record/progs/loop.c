/* A CPU loop; exits with the status given as its second argument. */
#include <stdlib.h>

#include "spin.h"

int main(int argc, char **argv) {
  spin(argc > 1 ? atof(argv[1]) : 0.5);
  return argc > 2 ? atoi(argv[2]) : 0;
}
