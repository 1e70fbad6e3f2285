static inline int mod_inline(int x)
{
	return x % 5;
}
