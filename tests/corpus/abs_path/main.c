#include <stdio.h>

int mod_fn(int);

int main(int argc, char **argv)
{
	(void)argv;
	for (int i = 0; i < argc; i++)
		printf("%d\n", mod_fn(i * 7));
	return 0;
}
