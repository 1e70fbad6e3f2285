#include <stdio.h>
#include <string.h>

static int classify(int c)
{
	int r = 0;
	switch (c) {
	case 'a': r += 1;
	case 'b': r += 2; /* fall through */
	default: r += 100;
	case 'c': r += 4; break;
	case 'd': case 'e': case 'f': r = -1; break;
	case 'z': return 26;
	}
	return r;
}

/* Duff's device */
static void copy(char *to, const char *from, int count)
{
	int n = (count + 7) / 8;
	if (count <= 0) return;
	switch (count % 8) {
	case 0: do { *to++ = *from++;
	case 7:      *to++ = *from++;
	case 6:      *to++ = *from++;
	case 5:      *to++ = *from++;
	case 4:      *to++ = *from++;
	case 3:      *to++ = *from++;
	case 2:      *to++ = *from++;
	case 1:      *to++ = *from++;
		} while (--n > 0);
	}
}

static int nested(int a, int b)
{
	switch (a) { case 0: switch (b) { case 0: return 1; case 1: return 2; default: break; } return 3; case 1: return 4; default: return 5; }
}

static int ranges(int x)
{
	switch (x) {
	case 0 ... 9: return 1;        /* GCC case ranges */
	case 10 ... 99: return 2;
	default: return 3;
	}
}

int main(int argc, char **argv)
{
	const char *txt = "abcdefzq";
	char buf[64];
	int s = 0;
	for (int i = 1; i < argc; i++) txt = argv[i];
	for (const char *p = txt; *p; p++) s += classify(*p);
	memset(buf, 0, sizeof buf);
	copy(buf, "0123456789abcdefghij", (int)strlen(txt) + 3);
	copy(buf, "xyz", 0);
	for (int a = 0; a < 3; a++) for (int b = 0; b < 3; b++) s += nested(a, b);
	s += ranges(5) + ranges(50) + ranges(500);
	printf("%d %s\n", s, buf);
	return 0;
}
