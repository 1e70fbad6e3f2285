#include <stdio.h>

int changes(int x)
{
#ifdef CHANGED
	if (x > 5)
		return x * 2;
#endif
	return x + 1;
}

int stays(int x)
{
	return x > 1 ? x : 0;
}

int main(int argc, char **argv)
{
	(void)argv;
	printf("%d %d\n", changes(argc), stays(argc));
	return 0;
}
