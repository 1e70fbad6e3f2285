#include <stdio.h>
#include "util.h"

static int twice(int x) { return 2 * x; }

int main(int argc, char **argv)
{
	(void)argv;
	int r = 0;
	for (int i = 0; i < argc * 5; i++)
		r += classify(i) && sum_to(i) > 3 ? twice(i) : 0;
	printf("%d\n", r);
	return 0;
}
