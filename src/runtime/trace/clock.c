/* TSC detection and calibration pairs. */
#include "clock.h"

#include <fcntl.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

int ckt_clock_tsc;
uint64_t volatile ckt_next_calib = UINT64_MAX;
static uint64_t tsc_per_sec;  /* measured on demand (min time) */

CKT_FN uint64_t ckt_mono_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

CKT_FN static int invariant_tsc(void) {
#if defined(__x86_64__) || defined(__i386__)
  unsigned a, b, c, d;
  if (!__get_cpuid(0x80000000u, &a, &b, &c, &d) || a < 0x80000007u) return 0;
  __cpuid(0x80000007u, a, b, c, d);
  return (d >> 8) & 1;
#else
  return 0;
#endif
}

CKT_FN static int kernel_uses_tsc(void) {
  int fd = open("/sys/devices/system/clocksource/clocksource0/current_clocksource", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return 0;
  char buf[32];
  ssize_t n = read(fd, buf, sizeof buf - 1);
  close(fd);
  if (n <= 0) return 0;
  buf[n] = 0;
  return strcmp(buf, "tsc\n") == 0 || strcmp(buf, "tsc") == 0;
}

CKT_FN void ckt_clock_init(int force_mono) {
  ckt_clock_tsc = !force_mono && invariant_tsc() && kernel_uses_tsc();
}

CKT_FN void ckt_clock_pair(uint64_t *counter, uint64_t *ns) {
  if (!ckt_clock_tsc) {
    *counter = *ns = ckt_mono_ns();
    return;
  }
  /* The tightest of a few tries; the counter is the middle of the bracket. */
  uint64_t best = UINT64_MAX;
  for (int i = 0; i < 4; i++) {
    uint64_t a = ckt_now(), m = ckt_mono_ns(), b = ckt_now();
    if (b - a < best) {
      best = b - a;
      *counter = a + (b - a) / 2;
      *ns = m;
    }
  }
}

CKT_FN uint64_t ckt_clock_rate(uint64_t c0, uint64_t ns0, uint64_t c1, uint64_t ns1) {
  if (ns1 < ns0 + 1000000 || c1 <= c0) return 0;
  return (uint64_t)((double)(c1 - c0) * 1e9 / (double)(ns1 - ns0));
}

CKT_FN uint64_t ckt_clock_ns_to_ticks(uint64_t ns) {
  if (!ckt_clock_tsc || ns == 0) return ns;
  if (!tsc_per_sec) {
    uint64_t c0, n0, c1, n1;
    ckt_clock_pair(&c0, &n0);
    do ckt_clock_pair(&c1, &n1);
    while (n1 < n0 + 2000000);
    tsc_per_sec = ckt_clock_rate(c0, n0, c1, n1);
    if (!tsc_per_sec) tsc_per_sec = 1000000000u;
  }
  return (uint64_t)((double)ns * (double)tsc_per_sec / 1e9);
}
