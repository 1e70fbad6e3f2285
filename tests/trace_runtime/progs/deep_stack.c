/* Recursion deeper than the runtime's shadow stack (CKT_STACK_CAP frames),
 * in a thread with a large stack. Usage: deep_stack DEPTH */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static int depth;

int rec(int n) { return n > 1 ? rec(n - 1) + 1 : 1; }
/* Not empty: GCC drops the calls of an empty function (no side effect),
 * which -pg builds (unlike -finstrument-functions ones) would show. */
void after(void) { __asm__ __volatile__(""); }

void *run(void *arg) {
  (void)arg;
  int r = rec(depth);
  after();
  return (void *)(long)r;
}

int main(int argc, char **argv) {
  depth = argc > 1 ? atoi(argv[1]) : 1000;
  pthread_attr_t a;
  pthread_attr_init(&a);
  pthread_attr_setstacksize(&a, (size_t)512 << 20);
  pthread_t t;
  void *r;
  if (pthread_create(&t, &a, run, NULL) != 0) return 2;
  pthread_join(t, &r);
  printf("%ld\n", (long)r);
  return 0;
}
