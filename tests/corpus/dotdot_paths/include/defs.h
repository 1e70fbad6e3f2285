#define DEFS_TWICE(x) ((x) * 2)
static inline int defs_inline(int x)
{
	if (x > 3)
		return 1;
	return 0;
}
