int used(int x)
{
	return x * 3;
}
