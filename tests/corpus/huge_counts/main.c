#include <stdio.h>

/* counts beyond 10^7 (about 5*10^7 on one line), so -H shows units */
static unsigned long spin(unsigned long n)
{
	unsigned long acc = 0;
	for (unsigned long i = 0; i < n; i++) acc += i ^ (acc >> 3);
	return acc;
}

static unsigned small(unsigned n) { unsigned s = 0; for (unsigned i = 0; i < n; i++) s += i; return s; }

int main(int argc, char **argv)
{
	(void)argv;
	unsigned long r = spin(25000000UL) + spin(1234567UL * (unsigned long)argc);
	for (int k = 0; k < 1500; k++) r += small(999);
	printf("%lu\n", r);
	return 0;
}
