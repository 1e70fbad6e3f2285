#include <stdio.h>

int last_line(int v) { return v > 1 ? v : -v; }

int main(int argc, char **argv)
{
	(void)argv;
	printf("%d\n", last_line(argc));
	return 0;
}