#include "cfuncs.h"

int c_add(int a, int b)
{
	return a + b;
}

int c_apply(int (*cb)(int), int v)
{
	if (!cb)
		return v;
	return cb(v) + cxx_callback(v);
}
