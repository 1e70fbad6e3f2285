/* Process lifecycle: lazy start at the first event (safe before main and in
 * constructors), periodic calibration, normal end (destructor). */
#ifndef CKT_PROCESS_H
#define CKT_PROCESS_H

#include "ckt_base.h"

/* 1 when tracing is on (initializes the process at the first call). */
CKT_FN int ckt_process_ensure(void);
CKT_FN int ckt_process_active(void);
/* Turns tracing off for good (a forked child that cannot write). */
CKT_FN void ckt_process_set_inert(void);
/* Writes a `calib` line and restarts the calibration period from it. */
CKT_FN void ckt_process_calib_start(void);
/* The thread whose event crossed the calibration period writes `calib`. */
CKT_FN void ckt_calib_tick(uint64_t now);
/* One line on stderr, at most once per process. */
CKT_FN void ckt_warn(const char *what, const char *path);

extern uint64_t ckt_min_ticks;

#endif
