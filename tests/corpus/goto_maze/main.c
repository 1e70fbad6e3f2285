#include <stdio.h>

static int collatz_goto(int n)
{
	int steps = 0;
top:
	if (n == 1) goto done;
	if (n % 2) goto odd;
	n /= 2; steps++; goto top;
odd:	n = 3 * n + 1; steps++; goto top;
done:
	return steps;
}

static int find(const int *a, int len, int key)
{
	int i = 0;
again:	if (i >= len) goto notfound; if (a[i] == key) goto found; i++; goto again;
found:
	return i;
notfound:
	return -1;
}

static int cleanup_chain(int fail_at)
{
	int r = 0;
	if (fail_at == 1) goto fail1;
	r += 1;
	if (fail_at == 2) goto fail2;
	r += 10;
	if (fail_at == 3) goto fail3;
	return r;
fail3:	r += 100;
fail2:	r += 1000;
fail1:	r += 10000;
	return -r;
}

int main(int argc, char **argv)
{
	static const int arr[] = { 5, 3, 9, 1, 7 };
	int total = 0;
	(void)argv;
	total += collatz_goto(27 + argc);
	total += find(arr, 5, 9) + find(arr, 5, argc) + find(arr, 5, 42);
	for (int i = 0; i < 4; i++) total += cleanup_chain(i);
	{ int k = 0; loop: k++; if (k < 5) goto loop; total += k; }
	printf("%d\n", total);
	return 0;
}
