int util_never_used(int x)
{
	return x + 1;
}
