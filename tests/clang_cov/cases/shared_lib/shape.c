#include <string.h>
#include "shape.h"

#define SQUARE(x) ((x) * (x))

int area(const char *kind, int side)
{
	side = clamp(side, 0, 100);
	if (kind && strcmp(kind, "square") == 0)
		return SQUARE(side);
	else if (kind && strcmp(kind, "circle") == 0)
		return 3 * SQUARE(side);
	return -1;
}

int never_called_in_lib(int x)
{
	return x > 0 ? x : -x;
}
