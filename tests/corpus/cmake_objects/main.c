#include <stdio.h>

int calc(int, int);

int main(int argc, char **argv)
{
	(void)argv;
	printf("%d\n", calc(argc, 3));
	return 0;
}
