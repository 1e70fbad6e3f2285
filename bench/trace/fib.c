/* fib.c: a program of tiny calls for bench/trace_vs_uftrace.sh.
 *
 *   fib N   (default 30) prints fib(N); it makes 2*F(N+1)-1 calls of fib
 *           (2,692,537 for N = 30), plus the one of main.
 *
 * Built with gcc -O2 -finstrument-functions (and plain -O2 as a baseline).
 * fib is noinline and its result is used, so the calls stay real calls: the
 * compiler does not inline fib into itself or turn a recursion into a loop,
 * and both tracers see exactly the same calls. */
#include <stdio.h>
#include <stdlib.h>

__attribute__((noinline, noclone)) long fib(int n) {
  if (n < 2) return n;
  return fib(n - 1) + fib(n - 2);
}

int main(int argc, char** argv) {
  int n = argc > 1 ? atoi(argv[1]) : 30;
  printf("fib(%d) = %ld\n", n, fib(n));
  return 0;
}
