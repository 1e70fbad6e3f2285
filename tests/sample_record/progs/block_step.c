/* The block-stepping equivalence test's program (run_block_step.py): a
 * deterministic loop whose whole path repeats every 8 rounds, so that any
 * window of it that one recording saw, the other saw too. It has what the
 * emulation must step through exactly: loops, direct and indirect calls,
 * recursion (returns), a jump table, rep movs and rep stos, a call into
 * libc (strtoul), and a signal handler (SIGALRM every 300 us of real time) that runs
 * the same code on another frame. Also what block stepping takes shortcuts
 * through: a tight loop of a data-dependent length (its passes counted by a
 * breakpoint, the vector ending inside it or after it), and a return whose
 * slot the code overwrote (a retpoline's shape: the return does not go
 * where the call's next instruction is). */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/time.h>

static volatile unsigned long sink;
typedef unsigned (*op_fn)(unsigned);
__attribute__((noinline)) static unsigned op_a(unsigned x) { return x * 3u + 1u; }
__attribute__((noinline)) static unsigned op_b(unsigned x) { return (x >> 1) ^ 0x55u; }
__attribute__((noinline)) static unsigned op_c(unsigned x) { return x + (x << 2); }
static op_fn ops[3] = {op_a, op_b, op_c};
static const char *const digits[8] = {"0", "17", "255", "4096", "-3", "77777", "12", "9"};

__attribute__((noinline)) static unsigned fib(unsigned n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }

__attribute__((noinline)) static unsigned dispatch(unsigned op, unsigned x) {
  switch (op) { /* dense: a jump table at -O1 and above */
    case 0: return x + 1;
    case 1: return x * 7;
    case 2: return x ^ 0xff;
    case 3: return x - 3;
    case 4: return x << 1;
    case 5: return x >> 2;
    case 6: return x | 16;
    case 7: return x & 0xf0f;
    default: return x;
  }
}

/* call 1f pushes the address of the jmp; 1: replaces it by 2f's; the
 * return goes to 2f. The red zone is stepped over: the call writes there. */
__attribute__((noinline)) static unsigned overwritten_return(unsigned x) {
  unsigned r;
  __asm__ volatile(
      "lea -128(%%rsp), %%rsp\n\t"
      "call 1f\n\t"
      "jmp 3f\n"
      "1: lea 2f(%%rip), %%rax\n\t"
      "mov %%rax, (%%rsp)\n\t"
      "ret\n"
      "2: lea 1(%1), %0\n"
      "3: lea 128(%%rsp), %%rsp\n\t"
      : "=r"(r)
      : "r"(x)
      : "rax", "memory", "cc");
  return r;
}

__attribute__((noinline)) static unsigned tight_loop(unsigned k) {
  unsigned h = k;
  for (unsigned j = 0; j < 2 + 2 * k; j++) {
    h = h * 31 + j;
    __asm__ volatile("" : "+r"(h)); /* no vectorizing: one straight pass per round */
  }
  return h;
}

/* One caller per trip count, so that a vector shows which count a call of
 * tight_loop has (the test checks the passes block stepping counted). */
#define LOOP_CALLER(k) \
  __attribute__((noinline)) static unsigned loop_##k(void) { return tight_loop(k) + 1; }
LOOP_CALLER(0)
LOOP_CALLER(1)
LOOP_CALLER(2)
LOOP_CALLER(3)
LOOP_CALLER(4)
LOOP_CALLER(5)
LOOP_CALLER(6)
LOOP_CALLER(7)
static unsigned (*const loops[8])(void) = {loop_0, loop_1, loop_2, loop_3, loop_4, loop_5, loop_6, loop_7};

__attribute__((noinline)) static unsigned work(unsigned k) {
  unsigned x = k;
  x += loops[k & 7]();
  x = overwritten_return(x);
  char src[32], dst[32];
  for (unsigned i = 0; i < 3 + k / 2; i++) {
    x = dispatch((x + i) & 7, x);
    x = ops[(x + k) % 3](x);
    if (x & 1) x += fib(k % 3 + 2);
    else x ^= i;
  }
  /* libc on a path that depends on the data only (memset's would depend
   * on the stack's address, which differs between the two runs) */
  x += (unsigned)strtoul(digits[k & 7], NULL, 10);
  for (unsigned j = 0; j < sizeof src; j++) src[j] = (char)(k * j + 1);
  char *d = dst;
  const char *s = src;
  unsigned long n = 4 + k;
  __asm__ volatile("rep movsb" : "+D"(d), "+S"(s), "+c"(n) : : "memory");
  /* rep stos of 0 to 54 passes, and 200 (a count the step cap ends in
   * when the test lowers the cap) */
  char fill[256];
  char *f = fill;
  unsigned long m = k == 7 ? 200 : 9 * k;
  __asm__ volatile("rep stosb" : "+D"(f), "+c"(m) : "a"(k) : "memory");
  return x + (unsigned char)dst[3] + (k ? (unsigned char)fill[0] : 0u);
}

static void on_alarm(int sig) {
  (void)sig;
  sink += work(3);
}

int main(int argc, char **argv) {
  double seconds = argc > 1 ? atof(argv[1]) : 1.0;
  signal(SIGALRM, on_alarm);
  struct itimerval it = {{0, 300}, {0, 300}};
  setitimer(ITIMER_REAL, &it, NULL);
  unsigned long rounds = (unsigned long)(seconds * 2000000);
  for (unsigned long r = 0; r < rounds; r++) sink += work((unsigned)(r & 7));
  printf("%lu\n", sink & 1);
  return 0;
}
