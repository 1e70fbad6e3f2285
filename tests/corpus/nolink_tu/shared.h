#ifndef SHARED_H
#define SHARED_H
static inline int clampi(int v, int lo, int hi)
{
	if (v < lo)
		return lo;
	if (v > hi)
		return hi;
	return v;
}
#endif
