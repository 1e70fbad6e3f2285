#include <setjmp.h>
#include <stdio.h>

static jmp_buf env;
static jmp_buf env2;
static int depth_reached;

static void level3(int n)
{
	depth_reached = 3;
	if (n > 2) longjmp(env, n);
	printf("level3 returns normally\n");
}

static void level2(int n) { depth_reached = 2; level3(n); printf("after level3\n"); }

static void level1(int n)
{
	depth_reached = 1;
	level2(n);
	printf("after level2\n");
}

static int nested_jump(int k)
{
	volatile int tries = 0;
	if (setjmp(env2) < 3) {
		tries++;
		if (tries < k) longjmp(env2, tries);
	}
	return tries;
}

int main(int argc, char **argv)
{
	volatile int count = 0;
	int r;
	(void)argv;
	for (int i = 0; i < 5; i++) {
		if ((r = setjmp(env)) == 0) {
			level1(i + argc);
			count += 1;
		} else {
			count += 100 * r;
		}
	}
	printf("count=%d depth=%d nj=%d\n", count, depth_reached, nested_jump(4 + argc));
	return 0;
}
