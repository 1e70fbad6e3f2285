#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

/* Runs that leave through _exit() never write a .gcda: only the
   other runs are counted. */
static int work(int n)
{
	int s = 0;
	for (int i = 0; i < n; i++)
		s += i;
	return s;
}

static void leave_hard(int code)
{
	fflush(stdout);
	_exit(code);
}

int main(int argc, char **argv)
{
	int s = work(argc * 10);
	printf("%d\n", s);
	if (argc > 2)
		leave_hard(0);
	if (argc > 1 && argv[1][0] == 'e')
		exit(0);
	return 0;
}
