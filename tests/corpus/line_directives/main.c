#include <stdio.h>

static int before(int x)
{
	return x + 1;
}

#line 5 "real_other.c"
static int in_other_file(int x)
{
	if (x > 2)
		return x * 3;
	return x;
}

#line 100 "generated/does_not_exist.y"
static int from_grammar(int x)
{
	int s = 0;
	for (int i = 0; i < x; i++)
		s += i;
	return s;
}

#line 40 "main.c"
static int back_in_main(int x) { return x - 1; }

#line 3
static int renumbered(int x)
{
	return x * x;
}

int main(int argc, char **argv)
{
	(void)argv;
	printf("%d\n", before(argc) + in_other_file(argc) + from_grammar(argc + 2) + back_in_main(argc) + renumbered(argc));
	return 0;
}
