#include <stdio.h>

int used(int x);
int unused_in_lib(int x);

static int never_static(int a, int b)
{
	if (a > b)
		return a - b;
	for (int i = 0; i < b; i++)
		a += i;
	return a;
}

int never_global(void) { return 7; }

static inline int never_inline(int q) { return q * q; }

int main(int argc, char **argv)
{
	(void)argv;
	if (argc > 100)
		return never_static(argc, 3) + never_global() + never_inline(argc);
	printf("%d\n", used(argc));
	return 0;
}
