#include <stdio.h>
#include <stdlib.h>
#include "shape.h"

int main(int argc, char **argv)
{
	int side = argc > 2 ? atoi(argv[2]) : 2;
	printf("%d\n", area(argc > 1 ? argv[1] : NULL, clamp(side, 1, 10)));
	return 0;
}
