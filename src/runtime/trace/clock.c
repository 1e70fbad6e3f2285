/* The clock's choice and calibration pairs. */
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
const char *ckt_clock_reason = "unverified";
char ckt_kernel_clocksource[32];
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

/* The first `size - 1` bytes of a file (a /proc or /sys file), NUL-ended;
 * "" when it cannot be read. */
CKT_FN static void read_head(const char *path, char *buf, size_t size) {
  buf[0] = 0;
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return;
  size_t n = 0;
  while (n < size - 1) {
    ssize_t r = read(fd, buf + n, size - 1 - n);
    if (r <= 0) break;
    n += (size_t)r;
  }
  close(fd);
  buf[n] = 0;
}

/* `word` is one of the space-separated words of `list` (which ends at a
 * newline or NUL). */
CKT_FN static int has_word(const char *list, const char *word) {
  size_t n = strlen(word);
  for (const char *p = list; *p && *p != '\n';) {
    while (*p == ' ' || *p == '\t' || *p == ':') p++;
    const char *end = p;
    while (*end && *end != ' ' && *end != '\t' && *end != '\n') end++;
    if ((size_t)(end - p) == n && memcmp(p, word, n) == 0) return 1;
    p = end;
  }
  return 0;
}

CKT_FN int ckt_clock_choose(int choice, int has_tsc, int invariant, const char *clocksource, const char *cpu_flags,
                            const char **reason) {
  if (!has_tsc) {
    *reason = "no-tsc";
    return 0;
  }
  if (choice != CKT_CLOCK_AUTO) {
    *reason = "forced";
    return choice == CKT_CLOCK_TSC;
  }
  if (!invariant) {
    *reason = "not-invariant";
    return 0;
  }
  if (strcmp(clocksource, "tsc") == 0) {
    *reason = "kernel";
    return 1;
  }
  if (has_word(cpu_flags, "constant_tsc") && has_word(cpu_flags, "nonstop_tsc") &&
      (has_word(cpu_flags, "tsc_reliable") || has_word(cpu_flags, "tsc_known_freq"))) {
    *reason = "cpu-flags";
    return 1;
  }
  *reason = "unverified";
  return 0;
}

/* The `flags` line of the first processor in /proc/cpuinfo (its first
 * 16 KiB hold it: a processor's entry is about 1.5 KiB), or "". */
CKT_FN static const char *cpu_flags(char *buf, size_t size) {
  read_head("/proc/cpuinfo", buf, size);
  for (char *line = buf; line && *line; line = strchr(line, '\n'), line = line ? line + 1 : 0) {
    if (strncmp(line, "flags", 5) != 0) continue;
    char *colon = strchr(line, ':');
    char *nl = strchr(line, '\n');
    if (!colon || !nl || colon > nl) break;
    *nl = 0;
    return colon + 1;
  }
  return "";
}

CKT_FN void ckt_clock_init(int choice) {
#if defined(__x86_64__) || defined(__i386__)
  const int has_tsc = 1;
#else
  const int has_tsc = 0;
#endif
  char source[sizeof ckt_kernel_clocksource];
  read_head("/sys/devices/system/clocksource/clocksource0/current_clocksource", source, sizeof source);
  source[strcspn(source, "\n")] = 0;
  memcpy(ckt_kernel_clocksource, source, sizeof source);
  /* Read only when the choice depends on it (on a static buffer: this runs
   * once, on the thread that starts the process's tracing). */
  static char flags_buf[16384];
  const char *flags = "";
  if (has_tsc && choice == CKT_CLOCK_AUTO && strcmp(source, "tsc") != 0 && invariant_tsc())
    flags = cpu_flags(flags_buf, sizeof flags_buf);
  ckt_clock_tsc = ckt_clock_choose(choice, has_tsc, has_tsc && invariant_tsc(), source, flags, &ckt_clock_reason);
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
