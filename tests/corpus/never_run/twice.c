int twice(int v)
{
	if (v < 0)
		return 0;
	return v + v;
}
