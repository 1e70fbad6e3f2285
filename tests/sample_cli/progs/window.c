/* `covkit sample record --pid` records a window of a run: serve() sets up
 * (before anyone attaches) and then loops on its commands. Its set-up
 * dominates the loop, so "the loop ran => the set-up ran" is true of the
 * whole run, and false of the window: the set-up's lines must not show as
 * covered in a recording attached after it. Each command answers "done X". */
#include <stdio.h>

static volatile long sink;

__attribute__((noinline)) void serve(void) {
  long base = 0;
  for (int i = 0; i < 50; i++) base += i * 13;  /* set-up */
  sink = base * 7;                                /* set-up, done */
  printf("ready\n");
  fflush(stdout);
  char line[64];
  while (fgets(line, sizeof line, stdin)) {
    if (line[0] == 'q') break;
    sink += line[0] * 17;                         /* a command */
    printf("done %c\n", line[0]);
    fflush(stdout);
  }
  sink += 1;                                      /* the end */
}

int main(void) {
  serve();
  return 0;
}
