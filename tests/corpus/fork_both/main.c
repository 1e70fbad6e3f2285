#include <stdio.h>
#include <stdlib.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

static int child_work(int n)
{
	int s = 0;
	for (int i = 0; i < n; i++)
		s += i % 3;
	return s;
}

static int parent_work(int n)
{
	int s = 1;
	for (int i = 0; i < n; i++)
		s = (s * 7) % 101;
	return s;
}

int main(int argc, char **argv)
{
	int nkids = argc;
	(void)argv;
	fflush(stdout);
	for (int k = 0; k < nkids; k++) {
		pid_t pid = fork();
		if (pid < 0) {
			perror("fork");
			return 1;
		}
		if (pid == 0) {
			int r = child_work(100 + k);
			exit(r & 0);	/* exit() -> the child writes its counters too */
		}
		int status = 0;
		waitpid(pid, &status, 0);	/* strictly sequential: deterministic */
		if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
			printf("child failed\n");
	}
	printf("%d\n", parent_work(50));
	return 0;
}
