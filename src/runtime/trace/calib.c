/* The calibration period (docs/trace-format.md, "Clock"). */
#include "calib.h"

#include "clock.h"
#include "process_meta.h"

static uint64_t calib0_counter, calib0_ns;

CKT_FN void ckt_calib_start(void) {
  ckt_meta_calib(&calib0_counter, &calib0_ns);
  /* The first period is short (the TSC rate is not known yet); later ones
   * are a second long. */
  uint64_t first = ckt_clock_tsc ? (uint64_t)1 << 27 : 100000000u;
  __atomic_store_n(&ckt_next_calib, calib0_counter + first, __ATOMIC_RELAXED);
}

CKT_FN void ckt_calib_stop(void) { __atomic_store_n(&ckt_next_calib, UINT64_MAX, __ATOMIC_RELAXED); }

CKT_FN void ckt_calib_tick(uint64_t now) {
  uint64_t next = ckt_next_calib;
  if (now < next) return;
  /* One thread claims the period. */
  if (!__atomic_compare_exchange_n(&ckt_next_calib, &next, UINT64_MAX, 0, __ATOMIC_RELAXED,
                                   __ATOMIC_RELAXED))
    return;
  uint64_t c, ns;
  ckt_meta_calib(&c, &ns);
  uint64_t per_sec = ckt_clock_tsc ? ckt_clock_rate(calib0_counter, calib0_ns, c, ns) : 1000000000u;
  if (!per_sec) per_sec = (uint64_t)1 << 30;
  __atomic_store_n(&ckt_next_calib, c + per_sec, __ATOMIC_RELAXED);
}
