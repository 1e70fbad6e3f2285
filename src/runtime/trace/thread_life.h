/* A thread's stream from its first event to its end: the state is mapped at
 * the first event, the stream ends by a pthread key destructor (thread exit)
 * or at the process end. */
#ifndef CKT_THREAD_LIFE_H
#define CKT_THREAD_LIFE_H

#include "thread_state.h"

/* The pthread key whose destructor ends a thread's stream; 0 on failure. */
CKT_FN int ckt_thread_key_init(void);
/* The calling thread's state with its stream open and registered; NULL on
 * failure (no stream could be created). */
CKT_FN struct ckt_thread *ckt_thread_create(void);
/* Normal end of the calling thread's stream: closes open frames, `end`,
 * header counts and flag, `thread` line; the state is released. */
CKT_FN void ckt_thread_finish(struct ckt_thread *t);
/* Forked child, forking thread: a new stream starting with `stack`. */
CKT_FN void ckt_thread_restart_in_child(struct ckt_thread *t);
/* Forked child that cannot trace: forget the state. */
CKT_FN void ckt_thread_drop_in_child(struct ckt_thread *t);

#endif
