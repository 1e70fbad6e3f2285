/* A plugin for dl_host.c, built -shared with patchable entries. */
__attribute__((noinline)) long plug_leaf(long x) { return x * 3 + 1; }

static __attribute__((noinline)) long plug_static(long x) { return plug_leaf(x) + 2; }

long plug_work(int n) {
  long s = 0;
  for (int i = 0; i < n; i++) s += plug_static(i);
  return s;
}
