/* A program that runs until killed: main > tick() > nap() sleeps 5 ms per
 * call, so a report taken while it runs sees both open. Prints its pid and
 * flushes once the first tick has returned. Usage: sleeper [MAX_TICKS
 * [STOP_FILE]]: with STOP_FILE it also stops, normally, once that file
 * exists (a test's cue, however slow the machine), and prints "ticks N". */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

void nap(void) {
  struct timespec ts = {0, 5 * 1000 * 1000};
  nanosleep(&ts, NULL);
}

void tick(int i) {
  (void)i;
  nap();
}

int main(int argc, char **argv) {
  long max = argc > 1 ? strtol(argv[1], NULL, 10) : 100000;
  const char *stop = argc > 2 ? argv[2] : NULL;
  long i = 0;
  for (; i < max; i++) {
    if (stop && access(stop, F_OK) == 0) break;
    tick((int)i);
    if (i == 0) {
      printf("pid %d\n", (int)getpid());
      fflush(stdout);
    }
  }
  if (stop) printf("ticks %ld\n", i);
  return 0;
}
