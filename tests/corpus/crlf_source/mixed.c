/* mixed endings: some lines CRLF, some LF, one loneCR in a comment */
int mixed(int x)
{
	if (x > 2)
		return x * 2;
	return x;
}
