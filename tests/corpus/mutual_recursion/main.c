#include <stdio.h>
#include <stdlib.h>

int is_even(unsigned n);
int is_odd(unsigned n);

int is_even(unsigned n) { return n == 0 ? 1 : is_odd(n - 1); }
int is_odd(unsigned n) { return n == 0 ? 0 : is_even(n - 1); }

static unsigned long ack(unsigned long m, unsigned long n)
{
	if (m == 0) return n + 1;
	if (n == 0) return ack(m - 1, 1);
	return ack(m - 1, ack(m, n - 1));
}

/* a tiny recursive-descent expression evaluator: expr/term/factor are mutually recursive */
static const char *p;
static long expr(void);
static long factor(void)
{
	long v = 0;
	if (*p == '(') { p++; v = expr(); if (*p == ')') p++; return v; }
	if (*p == '-') { p++; return -factor(); }
	while (*p >= '0' && *p <= '9') v = v * 10 + (*p++ - '0');
	return v;
}
static long term(void)
{
	long v = factor();
	while (*p == '*' || *p == '/') { char op = *p++; long r = factor(); v = op == '*' ? v * r : (r ? v / r : 0); }
	return v;
}
static long expr(void)
{
	long v = term();
	while (*p == '+' || *p == '-') { char op = *p++; long r = term(); v = op == '+' ? v + r : v - r; }
	return v;
}

int main(int argc, char **argv)
{
	unsigned n = argc > 1 ? (unsigned)atoi(argv[1]) : 11;
	printf("%d %d %lu\n", is_even(n), is_odd(n), ack(2, 3));
	p = argc > 2 ? argv[2] : "2*(3+4)-(-5)/2";
	printf("%ld\n", expr());
	return 0;
}
