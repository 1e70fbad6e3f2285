int calc(int a, int b)
{
	return a > b ? a - b : b - a;
}
