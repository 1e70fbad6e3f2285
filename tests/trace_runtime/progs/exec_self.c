/* exec keeps the pid: each image must keep its own trace.
 * Usage: exec_self          before() twice, then execs itself as "exec_self after"
 *        exec_self after    after() three times */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* Not empty: GCC drops the calls of an empty function (no side effect),
 * which -pg builds (unlike -finstrument-functions ones) would show. */
void before(void) { __asm__ __volatile__(""); }
void after(void) { __asm__ __volatile__(""); }

void go(char *self) {
  char *args[] = {self, "after", NULL};
  fflush(stdout);
  execv(self, args);
  perror("execv");
}

int main(int argc, char **argv) {
  if (argc > 1 && strcmp(argv[1], "after") == 0) {
    for (int i = 0; i < 3; i++) after();
    printf("after\n");
    return 0;
  }
  before();
  before();
  printf("before\n");
  go(argv[0]);
  return 1;
}
