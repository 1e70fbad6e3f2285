#include <signal.h>
#include <stdio.h>
#include <string.h>

static volatile sig_atomic_t hits;

static void on_usr1(int sig)
{
	if (sig == SIGUSR1)
		hits++;
	else
		hits += 100;
}

static void on_usr2(int sig) { (void)sig; hits += 10; }

int main(int argc, char **argv)
{
	struct sigaction sa;
	(void)argv;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_usr1;
	sigaction(SIGUSR1, &sa, NULL);
	signal(SIGUSR2, on_usr2);
	for (int i = 0; i < argc + 1; i++)
		raise(SIGUSR1);
	if (argc > 1)
		raise(SIGUSR2);
	signal(SIGUSR2, SIG_IGN);
	raise(SIGUSR2);
	printf("%d\n", (int)hits);
	return 0;
}
