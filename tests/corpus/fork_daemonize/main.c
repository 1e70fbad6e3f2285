/* A daemon's fork: the parent leaves with _exit() (its counters are never
   written) and only the child writes them at its exit. libgcov zeroes the
   child's counters at the fork, so the line of the fork() has no count in
   the data while the arc the child took out of it has one: gcov gives the
   line "#####" (unexecuted) with a branch taken once, which lcov writes as
   BRDA ...,- (memcached's daemonize(), Debian 12's memcached 1.6.18). */
#include <stdio.h>
#include <stdlib.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

static int daemonize(void)
{
	pid_t pid;
	int status = 0;

	fflush(stdout);
	switch (pid = fork()) {
	case -1:
		return -1;
	case 0:
		break;
	default:
		/* wait, so that the child's files are written when ./prog ends */
		waitpid(pid, &status, 0);
		_exit(WIFEXITED(status) ? WEXITSTATUS(status) : 1);
	}
	return 0;
}

int main(int argc, char **argv)
{
	(void)argv;
	if (argc > 2 && daemonize() == -1) {
		perror("fork");
		return 1;
	}
	if (daemonize() == -1) {
		perror("fork");
		return 1;
	}
	printf("child %d\n", argc);
	return 0;
}
