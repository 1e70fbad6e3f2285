/* Runtime configuration from the environment (read once, at process start;
 * the variable names are in trace_contract.h). */
#ifndef CKT_CONFIG_H
#define CKT_CONFIG_H

#include "ckt_base.h"

struct ckt_config {
  char dir[CKT_PATH_MAX];  /* CKT_ENV_DIR (required: without it the runtime stays inert) */
  uint32_t max_depth;      /* CKT_ENV_MAX_DEPTH; UINT32_MAX = unlimited */
  uint64_t min_time_ns;    /* CKT_ENV_MIN_TIME_NS; 0 = off */
  uint32_t chunk_bytes;    /* CKT_ENV_CHUNK_KB (default 1 MiB), a multiple of the page size */
  int clock_choice;        /* CKT_ENV_CLOCK: CKT_CLOCK_AUTO, _TSC or _MONO (clock.h) */
};

extern struct ckt_config ckt_cfg;
/* min_time_ns in counter ticks (set at process start, once the clock is known). */
extern uint64_t ckt_min_ticks;

/* Fills ckt_cfg; 0 when CKT_ENV_DIR is unset or empty. */
CKT_FN int ckt_config_load(void);

#endif
