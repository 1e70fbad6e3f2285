#include <stdio.h>

extern int twice(int);

int main(int argc, char **argv)
{
	(void)argv;
	for (int i = 0; i < argc; i++)
		printf("%d\n", twice(i));
	return 0;
}
