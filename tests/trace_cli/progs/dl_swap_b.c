/* dl_swap_host's library B: the same layout as dl_swap_a.c, other names. */
__attribute__((noinline)) int beta_one(int x) { return x ^ 3; }
__attribute__((noinline)) int beta_two(int x) { return beta_one(x) ^ 4; }
int entry(int n) {
  int s = 0;
  for (int i = 0; i < n; i++) s += beta_two(i);
  return s;
}
