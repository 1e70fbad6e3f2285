/* Every function in this translation unit is never called. */
#include <string.h>

struct point { int x, y; };

int unused_in_lib(int x)
{
	int r = 0;
	while (x > 0) {
		r += x & 1;
		x >>= 1;
	}
	return r;
}

static int helper(const char *s) { return (int)strlen(s); }

int lib_entry(const char *s, struct point *p)
{
	if (!s || !p)
		return -1;
	p->x = helper(s);
	p->y = p->x ? p->x * 2 : 0;
	switch (p->y) {
	case 0: return 0;
	case 2: return 1;
	default: return 2;
	}
}

void lib_empty(void) {}
