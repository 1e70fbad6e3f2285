#include <stdio.h>

static int big_expression(int x) { return (x > 0 ? x * 1 : 0) + (x > 1 ? x * 2 : 1) + (x > 2 ? x * 3 : 2) + (x > 3 ? x * 4 : 3) + (x > 4 ? x * 5 : 4) + (x > 5 ? x * 6 : 5) + (x > 6 ? x * 7 : 6) + (x > 7 ? x * 8 : 7) + (x > 8 ? x * 9 : 8) + (x > 9 ? x * 10 : 9) + (x > 10 ? x * 11 : 10) + (x > 11 ? x * 12 : 11) + (x > 12 ? x * 13 : 12) + (x > 13 ? x * 14 : 13) + (x > 14 ? x * 15 : 14) + (x > 15 ? x * 16 : 15) + (x > 16 ? x * 17 : 16) + (x > 17 ? x * 18 : 17) + (x > 18 ? x * 19 : 18) + (x > 19 ? x * 20 : 19) + (x > 20 ? x * 21 : 20) + (x > 21 ? x * 22 : 21) + (x > 22 ? x * 23 : 22) + (x > 23 ? x * 24 : 23) + (x > 24 ? x * 25 : 24) + (x > 25 ? x * 26 : 25) + (x > 26 ? x * 27 : 26) + (x > 27 ? x * 28 : 27) + (x > 28 ? x * 29 : 28) + (x > 29 ? x * 30 : 29); }

static int long_condition(int v) { if (v == 0 || v == 7 || v == 14 || v == 21 || v == 28 || v == 35 || v == 42 || v == 49 || v == 56 || v == 63 || v == 70 || v == 77 || v == 84 || v == 91 || v == 98 || v == 105 || v == 112 || v == 119 || v == 126 || v == 133 || v == 140 || v == 147 || v == 154 || v == 161 || v == 168 || v == 175 || v == 182 || v == 189 || v == 196 || v == 203 || v == 210 || v == 217 || v == 224 || v == 231 || v == 238 || v == 245 || v == 252 || v == 259 || v == 266 || v == 273) return 1; return 0; }

/* a very long comment line a very long comment line a very long comment line a very long comment line a very long comment line a very long comment line a very long comment line a very long comment line a very long comment line a very long comment line a very long comment line a very long comment line a very long comment line a very long comment line a very long comment line a very long comment line */

int main(int argc, char **argv)
{
	(void)argv;
	int s = 0;
	for (int i = 0; i < 50; i++) s += big_expression(i - argc) + long_condition(i * argc);
	printf("%d\n", s);
	return 0;
}
