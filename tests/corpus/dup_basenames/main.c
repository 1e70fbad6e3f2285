#include <stdio.h>
#include "util.h"

int util_a(int);
int util_b(int);

int main(int argc, char **argv)
{
	(void)argv;
	printf("%d %d %d\n", util_a(argc), util_b(argc + 2), top_helper(argc));
	return 0;
}
