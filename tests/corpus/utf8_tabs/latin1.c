/* The next comment line contains raw ISO-8859-1 bytes (invalid UTF-8): */
/* café naïve */
int latin1_fn(int v)
{
	return v + 1;	/* °±ÿ */
}
