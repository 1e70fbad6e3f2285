/* A --coverage program that its user turned against root (issue 32): when
 * libgcov registers its object (linked with -Wl,--wrap=__gcov_init), it
 * renames the object to $HOSTILE_NAME and writes $HOSTILE_TEXT over its
 * first function's counters, as its owner could with a debugger (or, with
 * $HOSTILE_FANOUT, points its function table at one huge record); then it
 * says "ready" and waits for a line on stdin. The layout is GCC 11's and
 * 12's gcov_info (src/live/gcov_info_layout.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct ctr_info {
  unsigned num;
  long long *values;
};
struct fn_info {
  const void *key;
  unsigned ident, lineno_checksum, cfg_checksum;
  struct ctr_info ctrs[1];
};
struct info {
  unsigned version;
  void *next;
  unsigned stamp, checksum;
  const char *filename;
  void *merge[8];
  unsigned n_functions;
  const struct fn_info *const *functions;
};

void __real___gcov_init(struct info *);

static char name[4096]; /* in the module's data, where covkit looks for it */

/* $HOSTILE_FANOUT: the object's function table becomes 65,536 pointers at
 * one record of its own, which owns 4 M counters (32 MB of .bss, never
 * touched): 2 TB of counters to a reader that copies each function's. */
#define FANOUT (1 << 16)
static const struct fn_info *fanout[FANOUT];
static struct fn_info fanout_fn;
static long long fanout_counters[1 << 22];

void __wrap___gcov_init(struct info *info) {
  const char *want = getenv("HOSTILE_NAME");
  if (want && strlen(want) < sizeof name) {
    strcpy(name, want);
    info->filename = name;
  }
  const char *text = getenv("HOSTILE_TEXT");
  if (text && info->n_functions > 0 && info->functions[0]) {
    const struct ctr_info *arcs = &info->functions[0]->ctrs[0];
    size_t len = strlen(text);
    if (len <= arcs->num * sizeof(long long)) memcpy(arcs->values, text, len);
  }
  if (getenv("HOSTILE_FANOUT") && info->n_functions > 0 && info->functions[0]) {
    fanout_fn = *info->functions[0]; /* its key: this object, which owns it */
    fanout_fn.ctrs[0].num = 1 << 22;
    fanout_fn.ctrs[0].values = fanout_counters;
    for (int i = 0; i < FANOUT; ++i) fanout[i] = &fanout_fn;
    info->functions = fanout;
    info->n_functions = FANOUT;
  }
  __real___gcov_init(info);
}

static int work(int n) {
  int s = 0;
  for (int i = 0; i < n; ++i) s += i % 7 ? i : -i;
  return s;
}

int main(void) {
  printf("ready %d\n", work(1000));
  fflush(stdout);
  char line[64];
  if (!fgets(line, sizeof line, stdin)) return 0;
  return 0;
}
