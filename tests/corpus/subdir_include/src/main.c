#include <stdio.h>
#include "../include/lib/ring.h"

int main(int argc, char **argv)
{
	struct ring r = { { 0 }, 0, 0 };
	int v, s = 0;
	(void)argv;
	for (int i = 0; i < 5 + argc * 3; i++)
		if (ring_push(&r, i) != 0)
			s -= 100;
	while (ring_pop(&r, &v) == 0)
		s += v;
	printf("%d %d\n", s, ring_empty(&r));
	return 0;
}
