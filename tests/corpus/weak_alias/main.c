#include <stdio.h>

/* weak default, overridden by strong.c */
__attribute__((weak)) int hook(int x)
{
	return -x;
}

/* weak default that nobody overrides */
__attribute__((weak)) int hook2(int x)
{
	return x + 1000;
}

static int real_impl(int x) { return x * 3; }
int aliased(int x) __attribute__((alias("real_impl")));

int main(int argc, char **argv)
{
	(void)argv;
	printf("%d %d %d\n", hook(argc), hook2(argc), aliased(argc));
	return 0;
}
