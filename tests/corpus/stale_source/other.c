int g(int x)
{
	int s = 0;
	for (int i = 0; i < x; i++)
		s += i;
	return s;
}

int h(int y)
{
	return y * 2;
}
