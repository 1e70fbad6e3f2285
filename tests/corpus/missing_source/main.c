#include <stdio.h>
#include "gone.h"

int gone(int);

int main(int argc, char **argv)
{
	(void)argv;
	printf("%d %d\n", gone(argc - 1), gone_inline(argc));
	return 0;
}
