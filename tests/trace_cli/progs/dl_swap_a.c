/* dl_swap_host's library A: the same layout as dl_swap_b.c, other names. */
__attribute__((noinline)) int alpha_one(int x) { return x ^ 1; }
__attribute__((noinline)) int alpha_two(int x) { return alpha_one(x) ^ 2; }
int entry(int n) {
  int s = 0;
  for (int i = 0; i < n; i++) s += alpha_two(i);
  return s;
}
