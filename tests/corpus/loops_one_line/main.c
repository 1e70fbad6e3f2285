#include <stdio.h>
#include <stdlib.h>

static int grid[8][8];

int main(int argc, char **argv)
{
	int n = argc + 3, s = 0, i, j, k;
	for (i = 0; i < n; i++) for (j = 0; j < n; j++) grid[i][j] = i * j;
	for (i = 0; i < n; i++) for (j = 0; j < i; j++) for (k = 0; k < 2; k++) s += grid[i][j] + k;
	i = 0; while (i < 10) i += 3;
	j = 0; do j += 2; while (j < 7);
	k = 100; while (k > 0 && k % 7 != 0) { k--; } do { k -= 5; } while (k > 50);
	for (;;) { if (++s > 200) break; }
	for (i = 0; i < n; i++) { if (i & 1) continue; s += i; }
	i = 0; while (1) { if (i++ == argc) break; }
	for (i = 0; i < 0; i++) s = -1;
	printf("%d %d %d %d\n", s, i, j, k);
	return 0;
}
