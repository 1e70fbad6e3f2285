#include <stdio.h>
#include <string.h>

#define N 64

static unsigned table[N][N];

static unsigned mix(unsigned a, unsigned b) { return (a * 2654435761u) ^ (b >> 3); }

static void fill(unsigned seed)
{
	for (int i = 0; i < N; i++) for (int j = 0; j < N; j++) table[i][j] = mix(seed + i, j);
}

static unsigned reduce(void)
{
	unsigned best = 0;
	for (int i = 0; i < N; i++) {
		unsigned row = 0;
		for (int j = 0; j < N; j++)
			row += table[i][j] & 0xff;
		if (row > best)
			best = row;
	}
	return best;
}

static int count_primes(int limit)
{
	char sieve[4096];
	int c = 0;
	memset(sieve, 1, sizeof sieve);
	for (int i = 2; i < limit; i++) {
		if (!sieve[i]) continue;
		c++;
		for (int k = i * i; k < limit; k += i) sieve[k] = 0;
	}
	return c;
}

int main(int argc, char **argv)
{
	(void)argv;
	unsigned acc = 0;
	for (int round = 0; round < 3 + argc; round++) {
		fill((unsigned)round);
		acc ^= reduce();
	}
	printf("%u %d\n", acc, count_primes(1000 * argc));
	return 0;
}
