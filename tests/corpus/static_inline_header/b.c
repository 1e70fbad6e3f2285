#include "util.h"

int from_b(int x)
{
	return sign(-x) * 10;
}
