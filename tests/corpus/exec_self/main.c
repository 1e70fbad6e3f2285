#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The program re-executes itself: the counters of the first image are
   written (libgcov dumps before exec*), then the new image adds its own. */
static int stage(const char *s) { return s ? atoi(s) : 0; }

int main(int argc, char **argv)
{
	int n = argc > 1 ? stage(argv[1]) : 0;
	printf("stage %d\n", n);
	fflush(stdout);
	if (n < 2) {
		char buf[16];
		snprintf(buf, sizeof buf, "%d", n + 1);
		execl(argv[0], argv[0], buf, (char *)NULL);
		perror("execl");
		return 1;
	}
	return 0;
}
