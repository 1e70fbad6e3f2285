/* clang maps the whitespace and comment that end line 20 as a skipped
 * region opening the line, before its code: llvm-cov counts no line there
 * (no DA) yet writes its condition's branches (BRDA), as in gawk's node.c. */
#include <stdio.h>

static int flags;
#define QUIET (flags & 1)
#define LOUD (flags & 2)

static int classify(int x)
{
	if (x > 100) {
		x -= 100;
		/* else
			fall through */
	}
	/* a comment of
		two lines */

	if (   (! QUIET		/* not quiet and */
	        && (x > 1	/* big enough, or */
		    || (! LOUD && x < -5))))	/* very small */
		return 1;
	if (x == 0		/* zero */
	    && QUIET)
		return 2;
	return 0;
}

int main(int argc, char **argv)
{
	int sum = 0;
	flags = argc > 2 ? 1 : 0;
	for (int i = -10; i < 120; i += 7)
		sum += classify(i + argc);
	printf("%d\n", sum);
	return 0;
}
