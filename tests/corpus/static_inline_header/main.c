#include <stdio.h>
#include "util.h"

int main(int argc, char **argv)
{
	(void)argv;
	int s = 0;
	for (int i = -3; i < argc + 3; i++)
		s += from_a(i) + from_b(i);
	printf("%d %u\n", s, popcount_slow(255u));
	return 0;
}
