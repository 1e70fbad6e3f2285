/* Whether the process traces: new (nothing seen yet), starting, active or
 * inert for good. Kept apart from process.c so that the files below it
 * (fork, thread life) can ask without including the process start. */
#ifndef CKT_PROCESS_STATE_H
#define CKT_PROCESS_STATE_H

#include "ckt_base.h"

enum { CKT_ST_NEW, CKT_ST_STARTING, CKT_ST_ACTIVE, CKT_ST_INERT };
extern int ckt_process_state;

CKT_FN int ckt_process_active(void);
/* Turns tracing off for good (a forked child that cannot write). */
CKT_FN void ckt_process_set_inert(void);

#endif
