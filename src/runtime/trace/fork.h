/* fork: the child writes its own files. */
#ifndef CKT_FORK_H
#define CKT_FORK_H

#include "ckt_base.h"

/* Registers the pthread_atfork handlers (once per process image). */
CKT_FN void ckt_fork_init(void);

#endif
