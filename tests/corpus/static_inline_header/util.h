#ifndef UTIL_H
#define UTIL_H

static inline int sign(int v) { return (v > 0) - (v < 0); }

static inline unsigned popcount_slow(unsigned v)
{
	unsigned c = 0;
	while (v) {
		c += v & 1u;
		v >>= 1;
	}
	return c;
}

static inline int unused_helper(int a)
{
	return a ? a * 3 : -1;
}

int from_a(int);
int from_b(int);

#endif
