#include <stdio.h>
#include <stdlib.h>

static int calls;

static void bye(void) { printf("atexit handler, calls=%d\n", calls); }
static void bye2(void)
{
	if (calls > 3)
		printf("many calls\n");
}

static int dive(int depth, int limit)
{
	calls++;
	if (depth == limit) {
		fflush(stdout);
		exit(depth % 3);	/* leaves from deep inside the recursion */
	}
	return dive(depth + 1, limit) + 1;	/* never completes when exiting */
}

static int unused_after_exit(void)
{
	return calls * 2;
}

int main(int argc, char **argv)
{
	atexit(bye);
	atexit(bye2);
	if (argc > 1)
		dive(0, atoi(argv[1]));
	printf("normal return %d\n", unused_after_exit());
	return 0;
}
