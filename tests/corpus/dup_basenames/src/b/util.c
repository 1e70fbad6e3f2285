/* src/b/util.c */
#include "util.h"

int util_b(int x)
{
	int s = 0;
	for (int i = 0; i < x; i++)
		s += helper(i);
	return s;
}
