#include <stdio.h>
#include <string.h>

/* Größe, naïve café, 日本語のコメント, emoji 🚀 — all in comments */
static const char *greet = "héllo wörld ✓";	/* tab	inside	comment */

static int ünïcödé(int x)	/* UTF-8 identifier (C99 extended chars) */
{
	if (x > 1)		return x * 2;	/* tabs between tokens */
	return -x;
}

int	main(int argc,	char **argv)
{
	(void)argv;
	size_t n = strlen(greet);	/* «bytes», not characters */
	int	r =	ünïcödé(argc);
	  	if (argc > 2) r += 100; /* space-tab indentation mix */
	{ extern int latin1_fn(int); r += latin1_fn(argc); }
	printf("%zu %d %s\n", n, r, "→ done ←");
	return 0;
}
