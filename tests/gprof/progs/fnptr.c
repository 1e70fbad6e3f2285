/* Calls through function pointers (a table of operations) and a callback
   called from the C library (qsort's comparator: its caller is not in the
   program, so gprof shows it without that caller). */
#include <stdio.h>
#include <stdlib.h>

static long add(long a, long b) { return a + b; }
static long mul(long a, long b) { return a * b % 1000003; }
long sub(long a, long b) { return a - b; }

typedef long (*op_fn)(long, long);
static op_fn ops[] = {add, mul, sub, add};

static int compare(const void* a, const void* b) {
  long x = *(const long*)a, y = *(const long*)b;
  return (x > y) - (x < y);
}

long apply(op_fn f, long a, long b) { return f(a, b); }

int main(void) {
  long acc = 1;
  for (long i = 0; i < 4000; i++) acc = apply(ops[i % 4], acc, i + 1);
  long v[512];
  for (int i = 0; i < 512; i++) v[i] = (i * 7919) % 512;
  qsort(v, 512, sizeof v[0], compare);
  printf("%ld %ld\n", acc, v[100]);
  return 0;
}
