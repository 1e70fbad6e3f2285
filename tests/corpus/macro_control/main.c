#include <stdio.h>

#define CHECK(cond, code) do { if (!(cond)) { errors++; last = (code); } } while (0)
#define REPEAT(n) for (int _i = 0; _i < (n); _i++)
#define MAX(a, b) ((a) > (b) ? (a) : (b))
#define SWAP_IF_GREATER(x, y)          \
	do {                           \
		if ((x) > (y)) {       \
			int _t = (x);  \
			(x) = (y);     \
			(y) = _t;      \
		}                      \
	} while (0)
#define DEFINE_GETTER(name, expr) static int get_##name(int v) { if (v < 0) return -1; return (expr); }
#define UNLESS(c) if (!(c))

static int errors, last;

DEFINE_GETTER(double, v * 2)
DEFINE_GETTER(square, v * v)
DEFINE_GETTER(never, v - 1)

static void sort3(int *a, int *b, int *c)
{
	SWAP_IF_GREATER(*a, *b);
	SWAP_IF_GREATER(*b, *c);
	SWAP_IF_GREATER(*a, *b);
}

int main(int argc, char **argv)
{
	int x = 3, y = 1, z = 2, acc = 0;
	(void)argv;
	sort3(&x, &y, &z);
	CHECK(x <= y, 1);
	CHECK(y <= z, 2);
	CHECK(argc < 3, 3);
	REPEAT(argc + 2) acc += MAX(_i, 2);
	REPEAT(3) REPEAT(2) acc++;
	UNLESS(argc > 1) acc += get_double(acc);
	else acc += get_square(argc) + get_square(-argc);
	printf("%d %d %d %d %d %d\n", x, y, z, acc, errors, last);
	return 0;
}
