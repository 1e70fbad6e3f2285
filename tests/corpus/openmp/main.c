#include <stdio.h>

/* Fixed thread count and static schedule; the per-line totals do not depend
   on how the threads are scheduled. */
static long heavy(int i)
{
	long s = 0;
	for (int k = 0; k < 100; k++)
		s += (i * k) % 13;
	return s;
}

int main(int argc, char **argv)
{
	(void)argv;
	long total = 0;
	const int n = 1000 * argc;
#pragma omp parallel for num_threads(2) schedule(static) reduction(+:total)
	for (int i = 0; i < n; i++)
		total += heavy(i);

	long other = 0;
#pragma omp parallel num_threads(2) reduction(+:other)
	{
		other += 1;
	}
	printf("%ld %ld\n", total, other);
	return 0;
}
