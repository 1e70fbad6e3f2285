#include <stdio.h>
#include <stdlib.h>

static int calls;
static int t(int v) { calls++; return v; }

int main(int argc, char **argv)
{
	int a = argc > 1, b = argc > 2, c = argc > 3, d = argc & 1;
	int r = 0;
	if (a && b || c && !d || t(0) && t(1)) r++;
	r += (a || b) && (c || d) ? 1 : (a ? 2 : (b ? 3 : 4));
	r += t(a) && t(b) && t(c) && t(d);
	r += t(a) || t(b) || t(c) || t(d);
	int m = a ? b ? c ? 1 : 2 : 3 : d ? 4 : 5;
	int x = (a && (b || (c && (d || a)))) ? m : -m;
	int y = argc > 1 ? atoi(argv[1]) : 0, z = y > 0 && y < 10 ? y * 2 : y < 0 ? -y : 0;
	r += !!(a ^ b) + (c ?: 7) + (x < 0 ?: 9);
	printf("%d %d %d %d %d\n", r, m, x, z, calls);
	return 0;
}
