/* Process lifecycle: lazy start at the first event (safe before main and in
 * constructors), the first event of each thread, normal end (destructor). */
#ifndef CKT_PROCESS_H
#define CKT_PROCESS_H

#include "thread_state.h"

/* First event of a thread: starts the process if needed, creates the
 * thread's state (or returns &ckt_thread_off: not traced). */
CKT_FN struct ckt_thread *ckt_thread_attach(void);

#endif
