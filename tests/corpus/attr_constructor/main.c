#include <stdio.h>

static int order[8];
static int n_order;

__attribute__((constructor(101))) static void early(void) { order[n_order++] = 1; }
__attribute__((constructor(202))) static void later(void)
{
	order[n_order++] = 2;
}
__attribute__((constructor)) static void plain_ctor(void) { order[n_order++] = 3; }
__attribute__((destructor)) static void at_end(void)
{
	if (n_order != 3)
		printf("unexpected %d\n", n_order);
	else
		printf("destructor ran\n");
}
__attribute__((destructor(150))) static void at_end_prio(void) { n_order += 0; }

extern int helper_value(void);

int main(void)
{
	for (int i = 0; i < n_order; i++)
		printf("%d ", order[i]);
	printf("| %d\n", helper_value());
	return 0;
}
