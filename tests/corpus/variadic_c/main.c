#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static int sum_ints(int count, ...)
{
	va_list ap;
	int s = 0;
	va_start(ap, count);
	for (int i = 0; i < count; i++) s += va_arg(ap, int);
	va_end(ap);
	return s;
}

static double mix(const char *fmt, ...)
{
	va_list ap, copy;
	double acc = 0;
	va_start(ap, fmt);
	va_copy(copy, ap);
	for (const char *f = fmt; *f; f++) {
		switch (*f) {
		case 'i': acc += va_arg(ap, int); break;
		case 'd': acc += va_arg(ap, double); break;
		case 's': acc += (double)strlen(va_arg(ap, const char *)); break;
		default: acc -= 1; break;
		}
	}
	va_end(ap);
	if (*fmt == 'i') acc += va_arg(copy, int);
	va_end(copy);
	return acc;
}

static int my_printf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int my_printf(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int r = vprintf(fmt, ap);
	va_end(ap);
	return r;
}

#define LOG(...) my_printf(__VA_ARGS__)
#define COUNT_ARGS(...) (sizeof((int[]){ __VA_ARGS__ }) / sizeof(int))

int main(int argc, char **argv)
{
	int s = sum_ints(3, 1, 2, 3) + sum_ints(0) + sum_ints(argc, 5, 6, 7, 8);
	double m = mix("ids?", 4, 2.5, argv[0]) + mix("");
	LOG("%d %.1f %zu\n", s, m > 0 ? 1.0 : 0.0, COUNT_ARGS(1, 2, 3, 4));
	return 0;
}
