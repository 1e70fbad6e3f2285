/* A dlopen'ed module with its own counters. */
static volatile int seen;

void plugin_work(int n) {
  for (int i = 0; i < n; i++)
    if (i & 1) seen++;
    else seen += 2;
}
