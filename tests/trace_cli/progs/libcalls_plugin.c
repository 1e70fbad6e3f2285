/* An instrumented plugin loaded with dlopen by libcalls_main: its PLT is
 * hooked when its first instrumented function runs, before it calls out. */
#include <stdio.h>
#include <stdlib.h>

static int twice(int v) {
  char b[16];
  snprintf(b, sizeof b, "%d", v);
  return 2 * atoi(b);
}

int plug_work(int rounds) {
  int s = 0;
  for (int i = 0; i < rounds; i++) s += twice(i);
  return s;
}
