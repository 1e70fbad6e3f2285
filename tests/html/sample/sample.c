/* The program behind the HTML browser test (tests/html/run_html_test.py).
   main() never calls never_called(), and the if-branch in classify() is never
   taken; the MARK comments let the test find those lines by grepping. */
#include <stdio.h>

#include "lib/helpers.h"

int never_called(int x) {
  int doubled = x * 2; /* MARK:never-called */
  return doubled;
}

static int classify(int x) {
  if (x < 0) {
    return -1; /* MARK:branch-not-taken */
  }
  return x > 10 ? 2 : 1;
}

int main(void) {
  int total = 0;
  for (int i = 0; i < 5; i++) {
	total += classify(i) + full_add(i, 1); /* a tab-indented line */
  }
  total += half_pick(1);
  printf("total <%d> & done\n", total);
  return 0;
}
