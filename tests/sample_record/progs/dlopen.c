/* Loads libm with dlopen after the start, then starts a thread that calls
 * into it: the library's mappings must be in the recording even though the
 * program then crashes (no exit handlers run). */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>

#include "spin.h"

static double (*cosine)(double);
static volatile double out;

static void *body(void *arg) {
  (void)arg;
  double end = thread_cpu_seconds() + 0.2;
  for (double x = 0; thread_cpu_seconds() < end;)
    for (int i = 0; i < 10000; ++i, x += 0.001) out += cosine(x);
  return 0;
}

int main(void) {
  void *h = dlopen("libm.so.6", RTLD_NOW);
  if (!h) return 2;
  cosine = (double (*)(double))dlsym(h, "cos");
  pthread_t t;
  pthread_create(&t, 0, body, 0);
  pthread_join(t, 0);
  *(volatile int *)0 = 1;
  return 0;
}
