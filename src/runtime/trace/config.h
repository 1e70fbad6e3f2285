/* Runtime configuration from the environment (read once, at process start). */
#ifndef CKT_CONFIG_H
#define CKT_CONFIG_H

#include "ckt_base.h"

struct ckt_config {
  char dir[CKT_PATH_MAX];  /* COVKIT_TRACE_DIR (required: without it the runtime stays inert) */
  uint32_t max_depth;      /* COVKIT_TRACE_MAX_DEPTH; UINT32_MAX = unlimited */
  uint64_t min_time_ns;    /* COVKIT_TRACE_MIN_TIME_NS; 0 = off */
  uint32_t chunk_bytes;    /* COVKIT_TRACE_CHUNK_KB (default 1 MiB), a multiple of the page size */
  int force_mono;          /* COVKIT_TRACE_CLOCK=mono: never use the TSC */
};

extern struct ckt_config ckt_cfg;

/* Fills ckt_cfg; 0 when COVKIT_TRACE_DIR is unset or empty. */
int ckt_config_load(void);

#endif
