/* Calibration: `calib` lines (counter, CLOCK_MONOTONIC ns) at the start of a
 * process and about once a second after, written by whichever thread's
 * event crosses the period boundary (on its slow path). */
#ifndef CKT_CALIB_H
#define CKT_CALIB_H

#include "ckt_base.h"

/* Writes a `calib` line and restarts the calibration period from it. */
CKT_FN void ckt_calib_start(void);
/* The thread whose event crossed the calibration period writes `calib`. */
CKT_FN void ckt_calib_tick(uint64_t now);
/* No more periodic lines (a process that stopped tracing). */
CKT_FN void ckt_calib_stop(void);

#endif
