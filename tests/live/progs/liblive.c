/* A shared library with its own counters (its own libgcov root). */
static volatile int acc;

static int weigh(int n) { return n % 2 ? 3 * n : n / 2; }

void lib_touch(int n) {
  for (int i = 0; i < n % 17; i++) acc += weigh(i);
  if (n > 100) acc--;
}
