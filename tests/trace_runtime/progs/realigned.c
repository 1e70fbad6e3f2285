/* A function that realigns its stack (a 64-byte aligned local: and rsp,-64)
 * called from one call site with the incoming stack pointer moved by 16
 * bytes at each call (alloca in the caller), so the distance from its enter
 * hook's CFA to its return-address slot changes from call to call, and
 * with its frame's memory holding stale copies of that return address
 * (planted by plant(), as the hooks' own spills do at an earlier call with a
 * shallower frame). part() is inlined in it: its copy's hooks share the
 * host's slot and return address.
 *
 * realigned N: N calls; prints the sum of part()'s results. */
#include <alloca.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static uintptr_t site; /* realigned()'s return address, in caller() */

/* Leaves copies of site in the stack below its caller's frame, where
 * realigned()'s frame is next. */
__attribute__((noinline)) static void plant(void) {
  volatile uintptr_t words[128];
  for (int i = 0; i < 128; i++) words[i] = site;
}

static inline __attribute__((always_inline)) int part(volatile char *buf) { return buf[0] + buf[63]; }

__attribute__((noinline)) static int realigned(int v) {
  volatile char buf[64] __attribute__((aligned(64)));
  site = (uintptr_t)__builtin_return_address(0);
  for (int i = 0; i < 64; i++) buf[i] = (char)v;
  return part(buf);
}

__attribute__((noinline)) static int caller(int shift) {
  volatile char *pad = alloca((size_t)shift + 1);
  pad[0] = 0;
  if (site) plant();
  return realigned(shift & 63);
}

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 8;
  int sum = 0;
  for (int i = 0; i < n; i++) sum += caller(16 * i);
  printf("%d\n", sum);
  return 0;
}
