#include <stdio.h>

static int f(int x)
{
	if (x > 2)
		return x;
	return -x;
}

int main(int argc, char **argv)
{
	(void)argv;
	printf("%d\n", f(argc));
	return 0;
}
