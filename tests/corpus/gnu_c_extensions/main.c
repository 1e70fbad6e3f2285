#include <stdio.h>
#include <stdlib.h>

#define MAXV(a, b) ({ __typeof__(a) _a = (a); __typeof__(b) _b = (b); _a > _b ? _a : _b; })
#define KIND(x) _Generic((x), int: 1, long: 2, double: 3, default: 0)

static int freed;
static void release(int **p) { if (*p) { free(*p); freed++; } }

static int with_cleanup(int n)
{
	__attribute__((cleanup(release))) int *buf = malloc(sizeof(int) * (size_t)(n + 1));
	if (n > 3)
		return -1;	/* cleanup runs here ... */
	for (int i = 0; i <= n; i++)
		buf[i] = i;
	return buf[n];	/* ... and here */
}

static int likely_path(int x)
{
	if (__builtin_expect(x > 0, 1))
		return x;
	return 0;
}

int main(int argc, char **argv)
{
	(void)argv;
	int v = ({ int t = argc * 2; t + 1; });
	int s = MAXV(v, 3) + KIND(argc) + KIND(1L) + KIND(1.0) + KIND('c');
	for (int i = 0; i < 6; i++)
		s += with_cleanup(i) + likely_path(i - 1);
	int arr[5] = { [1] = 5, [3 ... 4] = 2 };
	s += arr[1] + arr[4];
	printf("%d %d\n", s, freed);
	return 0;
}
