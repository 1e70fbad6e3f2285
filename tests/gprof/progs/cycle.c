/* Mutual recursion: is_even/is_odd form one cycle, ping -> pong -> pang ->
   ping a second one entered from two places; walk calls itself too. */
#include <stdio.h>

int is_odd(unsigned n);
int is_even(unsigned n) { return n == 0 ? 1 : is_odd(n - 1); }
int is_odd(unsigned n) { return n == 0 ? 0 : is_even(n - 1); }

void pang(int n);
static volatile long sink;
void ping(int n) { sink += n; if (n > 0) pang(n - 1); }
void pong(int n) { sink += 2 * n; if (n > 0) ping(n - 1); }
void pang(int n) { sink += 3 * n; if (n > 0) pong(n - 1); }

static int walk(int n) { return n == 0 ? 0 : 1 + walk(n - 1); }

int main(void) {
  int r = 0;
  for (int i = 0; i < 300; i++) r += is_even(1000 + i);
  for (int i = 0; i < 200; i++) ping(60 + i % 7);
  for (int i = 0; i < 50; i++) pong(30);
  r += walk(500);
  printf("%d %ld\n", r, sink);
  return 0;
}
