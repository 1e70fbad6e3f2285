/* Recording filters and the on/off switch (covkit trace record -F, -N, -T,
 * --signal, --trace-off; covkit trace attach). Functions are named by
 * covkit, which writes their address ranges into a file (CKT_ENV_FILTERS,
 * format in trace_contract.h): the runtime never reads symbol tables.
 *
 * Every decision is taken on the slow path: when any filter or switch is
 * set, each thread starts with CKT_SLOW_FILTER, so its calls all go through
 * ckt_enter_push/ckt_pop_one. A call not recorded is still pushed on the
 * shadow stack (unwritten), as one beyond --max-depth is, so that the
 * stream stays nested and exact. */
#ifndef CKT_FILTERS_H
#define CKT_FILTERS_H

#include "thread_state.h"

enum {
  CKT_FF_ONLY = 1,    /* -F */
  CKT_FF_NOTRACE = 2, /* -N */
  CKT_FF_ON = 4,      /* -T ...@trace_on */
  CKT_FF_OFF = 8,     /* -T ...@trace_off */
  CKT_FF_KNOWN = 128  /* the flags of this id were looked up */
};

/* Any filter, trigger or switch set (constant once the process started). */
extern int ckt_filter_active;

/* Reads the settings at process start; 0 when the filter file is named but
 * unreadable or malformed (one line on stderr; the runtime stays inert:
 * recording everything would not be what was asked). */
CKT_FN int ckt_filters_load(void);

/* Tracing is switched off and no trigger can switch it on: a -pg or
 * patched entry need not even be followed (its return is not hooked, so no
 * exit will come for it). Not for -finstrument-functions, whose exit hook
 * is called anyway and must find its frame. */
CKT_FN int ckt_filter_idle(void);

/* A new frame at index d of function `fn` (id `id`, CKT_NO_ID when the id
 * table is full): applies its triggers and scopes; 1 when its call is to be
 * written (depth limit included). */
CKT_FN int ckt_filter_push(struct ckt_thread *t, uint32_t d, uintptr_t fn, uint32_t id);
/* The frame at index d was popped. */
CKT_INLINE void ckt_filter_pop(struct ckt_thread *t, uint32_t d) {
  if (t->only_lo != CKT_NONE && t->only_lo >= d) t->only_lo = CKT_NONE;
  if (t->notrace_lo != CKT_NONE && t->notrace_lo >= d) t->notrace_lo = CKT_NONE;
}

#endif
