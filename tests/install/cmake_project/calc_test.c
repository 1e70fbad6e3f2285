#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "calc.h"

int main(int argc, char **argv) {
  if (argc > 1 && strcmp(argv[1], "--fail") == 0) return 1;
  int n = argc > 1 ? atoi(argv[1]) : 7;
  int total = 0;
  for (int i = 1; i <= n; i++) total += collatz_steps(i);
  printf("%d\n", total);
  return 0;
}
