int mixed(int x);
int use_mixed(int n) { int s = 0; for (int i = 0; i < n; i++) s += mixed(i); return s; }
