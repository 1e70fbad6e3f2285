#include <stdio.h>
#include <stdlib.h>

/* GCC C extension: nested functions (the ones taking the address need a trampoline) */
static int sort_and_sum(int *v, int n, int descending)
{
	int compares = 0;
	int cmp(const void *a, const void *b)
	{
		int x = *(const int *)a, y = *(const int *)b;
		compares++;
		if (descending)
			return (y > x) - (y < x);
		return (x > y) - (x < y);
	}
	int square(int q) { return q * q; }
	qsort(v, (size_t)n, sizeof *v, cmp);
	int s = 0;
	for (int i = 0; i < n; i++)
		s += square(v[i]) * (i + 1);
	return s + compares * 0;
}

int main(int argc, char **argv)
{
	(void)argv;
	int v[] = { 5, 3, 8, 1, 9, 2 };
	printf("%d\n", sort_and_sum(v, 6, argc > 1));
	return 0;
}
