#include <stdio.h>
#include "util.h"

int main(int argc, char **argv)
{
	(void)argv;
	printf("%d\n", classify(argc) + sum_to(argc));
	return 0;
}
