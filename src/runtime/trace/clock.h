/* The counter of the trace: raw TSC when invariant and the kernel's
 * clocksource is "tsc", else CLOCK_MONOTONIC nanoseconds. */
#ifndef CKT_CLOCK_H
#define CKT_CLOCK_H

#include "ckt_base.h"

extern int ckt_clock_tsc;               /* 1: counters are rdtsc values */
extern uint64_t volatile ckt_next_calib; /* counter of the next `calib` line (UINT64_MAX: none) */

CKT_FN uint64_t ckt_mono_ns(void);

CKT_INLINE uint64_t ckt_now(void) {
#if defined(__x86_64__) || defined(__i386__)
  if (CKT_LIKELY(ckt_clock_tsc)) return __builtin_ia32_rdtsc();
#endif
  return ckt_mono_ns();
}

/* Chooses the clock (once per process). */
CKT_FN void ckt_clock_init(int force_mono);
/* A (counter, CLOCK_MONOTONIC ns) pair taken as close together as possible. */
CKT_FN void ckt_clock_pair(uint64_t *counter, uint64_t *ns);
/* Counter ticks in `ns` nanoseconds (measures the TSC rate for ~2 ms once). */
CKT_FN uint64_t ckt_clock_ns_to_ticks(uint64_t ns);
/* Ticks per second, estimated from two pairs at least 1 ms apart; 0 if not. */
CKT_FN uint64_t ckt_clock_rate(uint64_t c0, uint64_t ns0, uint64_t c1, uint64_t ns1);

#endif
