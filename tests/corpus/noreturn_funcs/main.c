#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>

static jmp_buf recover;

_Noreturn static void fatal(const char *msg, int code)
{
	printf("fatal: %s\n", msg);
	fflush(stdout);
	exit(code);
}

__attribute__((noreturn)) static void bail(int why)
{
	longjmp(recover, why);
}

static int checked_div(int a, int b)
{
	if (b == 0)
		bail(1);
	if (a < 0)
		bail(2);
	return a / b;
}

static int parse(const char *s)
{
	char *end;
	long v = strtol(s, &end, 10);
	if (*end) fatal("not a number", 3);
	return (int)v;
}

int main(int argc, char **argv)
{
	int results[4] = { 0 };
	int pairs[4][2] = { { 10, 2 }, { 5, 0 }, { -4, 2 }, { 9, 3 } };
	for (int i = 0; i < 4; i++) {
		int why = setjmp(recover);
		if (why == 0)
			results[i] = checked_div(pairs[i][0], pairs[i][1]);
		else
			results[i] = -why;
	}
	printf("%d %d %d %d\n", results[0], results[1], results[2], results[3]);
	for (int i = 1; i < argc; i++)
		printf("%d\n", parse(argv[i]));
	if (argc > 3) __builtin_unreachable();
	return 0;
}
