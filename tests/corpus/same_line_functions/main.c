#include <stdio.h>

static int one(void) { return 1; } static int two(void) { return 2; } static int never(void) { return 3; }
static int add(int a, int b) { return a + b; } int main(int argc, char **argv) { (void)argv; int s = 0; for (int i = 0; i < argc; i++) s += add(one(), two()); if (argc > 9) s += never(); printf("%d\n", s); return 0; }
