int hook(int x)
{
	if (x > 1)
		return x * 10;
	return x;
}
