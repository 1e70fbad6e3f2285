/* src/a/util.c: same basename as src/b/util.c -> output names collide without -p/-l */
int util_a(int x)
{
	if (x > 1)
		return x * 2;
	return 0;
}
