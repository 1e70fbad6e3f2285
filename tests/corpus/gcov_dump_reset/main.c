#include <stdio.h>
#include <unistd.h>

/* libgcov entry points (GCC >= 11) */
extern void __gcov_dump(void);
extern void __gcov_reset(void);

static int phase_a(int n) { int s = 0; for (int i = 0; i < n; i++) s += i * i; return s; }
static int phase_b(int n) { int s = 1; while (n-- > 0) s = s * 3 % 1000; return s; }

int main(int argc, char **argv)
{
	int s = phase_a(100);
	if (argc > 1 && argv[1][0] == 'r') {
		__gcov_reset();		/* forget phase_a */
	}
	s += phase_b(50);
	if (argc > 1 && argv[1][0] == 'd') {
		__gcov_dump();		/* write now, then leave without the exit-time dump */
		printf("%d\n", s);
		fflush(stdout);
		_exit(0);
	}
	printf("%d\n", s + phase_b(argc));
	return 0;
}
