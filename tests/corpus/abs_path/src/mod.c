#include "mod.h"

int mod_fn(int x)
{
	return mod_inline(x) + 1;
}
