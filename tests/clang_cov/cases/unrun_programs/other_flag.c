int main(int argc, char **argv)
{
	int n = 0;
	(void)argv;
	if (argc > 0)
		n++;
	if (argc > 1)
		n++;
	for (int k = 0; k < argc; k++)
		n += k;
	return n;
}
