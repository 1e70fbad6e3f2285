#include "util.h"

int from_a(int x)
{
	return sign(x) + (int)popcount_slow((unsigned)x);
}
