#include <stdio.h>
#include "./include/../include/defs.h"

int deep(int);

int main(int argc, char **argv)
{
	(void)argv;
	printf("%d %d\n", deep(argc), defs_inline(argc + 5));
	return 0;
}
