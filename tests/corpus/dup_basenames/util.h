/* top-level util.h: same basename as src/b/util.h */
static inline int top_helper(int v)
{
	return v + 1;
}
