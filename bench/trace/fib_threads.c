/* fib_threads.c: the calls of fib.c on several threads, for
 * bench/trace_read_speed.sh (a trace of several thread streams).
 *
 *   fib_threads T N   T threads (default 4), each computes fib(N) (default
 *                     28): T * (2*F(N+1)-1) calls of fib, plus main and
 *                     the thread functions.
 *
 * Built with gcc -O2 -finstrument-functions -pthread. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

__attribute__((noinline, noclone)) long fib(int n) {
  if (n < 2) return n;
  return fib(n - 1) + fib(n - 2);
}

static void* worker(void* arg) {
  long* n = arg;
  *n = fib((int)*n);
  return NULL;
}

int main(int argc, char** argv) {
  int threads = argc > 1 ? atoi(argv[1]) : 4;
  int n = argc > 2 ? atoi(argv[2]) : 28;
  if (threads < 1 || threads > 256) return 2;
  pthread_t tid[256];
  long result[256];
  for (int i = 0; i < threads; i++) {
    result[i] = n;
    if (pthread_create(&tid[i], NULL, worker, &result[i]) != 0) return 1;
  }
  long sum = 0;
  for (int i = 0; i < threads; i++) {
    pthread_join(tid[i], NULL);
    sum += result[i];
  }
  printf("%d x fib(%d) = %ld\n", threads, n, sum);
  return 0;
}
