#include "util.h"

int classify(int n)
{
	switch (n) {
	case 0:
		return 10;
	case 1:
	case 2:
		return 20;
	default:
		break;
	}
	return n > 10 || n < -10 ? 30 : 40;
}

int sum_to(int n)
{
	int s = 0;
	for (int i = 0; i <= n; i++)
		s += i;
	return s;
}
