#include "../../include/defs.h"

int deep(int x)
{
	return DEFS_TWICE(x) + defs_inline(x);
}
