/* The counter of the trace: raw TSC where the TSC can be trusted, else
 * CLOCK_MONOTONIC nanoseconds (docs/trace-format.md, "Clock"). */
#ifndef CKT_CLOCK_H
#define CKT_CLOCK_H

#include "ckt_base.h"

/* What CKT_ENV_CLOCK asks for. */
enum { CKT_CLOCK_AUTO, CKT_CLOCK_TSC, CKT_CLOCK_MONO };

extern int ckt_clock_tsc;               /* 1: counters are rdtsc values */
extern uint64_t volatile ckt_next_calib; /* counter of the next `calib` line (UINT64_MAX: none) */
extern const char *ckt_clock_reason;     /* why (the .meta's `clock_reason`): see ckt_clock_choose */
extern char ckt_kernel_clocksource[32];  /* the kernel's clocksource at the choice ("" if unreadable) */

CKT_FN uint64_t ckt_mono_ns(void);

CKT_INLINE uint64_t ckt_now(void) {
#if defined(__x86_64__) || defined(__i386__)
  if (CKT_LIKELY(ckt_clock_tsc)) return __builtin_ia32_rdtsc();
#endif
  return ckt_mono_ns();
}

/* Chooses the clock (once per process image). */
CKT_FN void ckt_clock_init(int choice);
/* The choice itself, from what the machine says: `has_tsc` (an x86 CPU),
 * `invariant` (CPUID's invariant-TSC bit), the kernel's current clocksource
 * and the flags line of /proc/cpuinfo (either may be ""). 1 for the TSC;
 * `*reason` is one word:
 *   forced         CKT_ENV_CLOCK named the clock
 *   kernel         the kernel's clocksource is the TSC
 *   cpu-flags      the kernel uses another (kvm-clock, hyperv_clocksource...)
 *                  but says the TSC is constant, does not stop, and is
 *                  reliable or of known frequency: on a virtual machine the
 *                  paravirtual clock costs twice an rdtsc, and the
 *                  calibration lines convert the TSC to CLOCK_MONOTONIC
 *   not-invariant  the TSC's rate changes with power states
 *   unverified     invariant, but the kernel neither uses it nor vouches for it
 *   no-tsc         not an x86 CPU */
CKT_FN int ckt_clock_choose(int choice, int has_tsc, int invariant, const char *clocksource, const char *cpu_flags,
                            const char **reason);
/* A (counter, CLOCK_MONOTONIC ns) pair taken as close together as possible. */
CKT_FN void ckt_clock_pair(uint64_t *counter, uint64_t *ns);
/* Counter ticks in `ns` nanoseconds (measures the TSC rate for ~2 ms once). */
CKT_FN uint64_t ckt_clock_ns_to_ticks(uint64_t ns);
/* Ticks per second, estimated from two pairs at least 1 ms apart; 0 if not. */
CKT_FN uint64_t ckt_clock_rate(uint64_t c0, uint64_t ns0, uint64_t c1, uint64_t ns1);

#endif
