/* deleted after the build: gcov cannot open this source */
int gone(int x)
{
	if (x)
		return 1;
	return 2;
}
