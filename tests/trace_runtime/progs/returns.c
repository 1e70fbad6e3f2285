/* Values that must survive the -pg hooks: arguments in every register class
 * (and on the stack, and variadic) into the entry hook, return values in
 * rax/rdx, xmm0/xmm1, x87 st0 and memory out through the exit trampoline.
 * Prints them; a run under the runtime must print what a run without it
 * prints. Usage: returns N (N rounds, each result depends on the round). */
#include <complex.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#define FRAME __attribute__((noinline, noclone))

struct pair_l { long a, b; };           /* rax:rdx */
struct pair_d { double x, y; };         /* xmm0:xmm1 */
struct mixed { double x; long n; };     /* xmm0, rax */
struct big { long v[5]; };              /* memory, address in rax */

FRAME long double ld(long double x, int k) { return x * k + 0.25L; }
FRAME struct pair_l pl(long a) { return (struct pair_l){a * 3, a * 5 + 1}; }
FRAME struct pair_d pd(double x) { return (struct pair_d){x / 4, x * 1.5}; }
FRAME struct mixed mx(double x, long n) { return (struct mixed){x + n, n * 7}; }
FRAME struct big bg(long s) {
  struct big b;
  for (int i = 0; i < 5; i++) b.v[i] = s * (i + 1);
  return b;
}
FRAME __int128 wide(long a) { return (__int128)a << 70 | (unsigned long)a; }
FRAME double _Complex cx(double r) { return r + r * 2 * I; }
FRAME float fl(float a, float b) { return a * b; }
/* Eight float and six integer register arguments, and more on the stack. */
FRAME double many(int a, long b, int c, long d, int e, long f, double g, double h, double i, double j,
                  double k, double l, double m, double n, int o, double p) {
  return a + b + c + d + e + f + g + h + i + j + k + l + m + n + o + p;
}
FRAME double var(int n, ...) {
  va_list ap;
  va_start(ap, n);
  double s = 0;
  for (int i = 0; i < n; i++) s += va_arg(ap, double);
  va_end(ap);
  return s;
}

int main(int argc, char **argv) {
  int rounds = argc > 1 ? atoi(argv[1]) : 3;
  for (int r = 1; r <= rounds; r++) {
    long double x = ld(1.0L / 3, r);
    struct pair_l p = pl(r);
    struct pair_d q = pd(r + 0.5);
    struct mixed m = mx(r * 0.125, r);
    struct big b = bg(r);
    __int128 w = wide(r);
    double _Complex c = cx(r);
    printf("%d %.21Lg %ld %ld %.17g %.17g %.17g %ld %ld %ld %lx %lx %.17g %.17g %.9g %.17g %.17g\n", r, x, p.a,
           p.b, q.x, q.y, m.x, m.n, b.v[0], b.v[4], (unsigned long)(w >> 64), (unsigned long)w, creal(c),
           cimag(c), fl(r, 0.5f), many(1, 2, 3, 4, 5, 6, 0.5, 1.5, 2.5, 3.5, 4.5, 5.5, 6.5, 7.5, r, 0.25),
           var(3, 1.0, 2.0, r * 1.0));
  }
  return 0;
}
