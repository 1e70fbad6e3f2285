/* The instrumented part of progs/blocking.c: counters for covkit to read. */
static volatile long ticks;

void tick(void) { ticks++; }
