/* This file has CRLF (DOS) line endings. */
#include <stdio.h>

static int weird(int n)
{
	int s = 0;
	for (int i = 0; i < n; i++) {
		if (i % 3 == 0)
			s += i;
		else
			s -= 1;
	}
	return s;
}

int main(int argc, char **argv)
{
	(void)argv;
	{ extern int use_mixed(int); printf("%d %d\n", weird(argc * 5), use_mixed(argc + 3)); }
	return 0;
}
