/* Environment variables of the runtime (see docs/trace-format.md, Limits). */
#include "config.h"
#include "clock.h"
#include "trace_contract.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct ckt_config ckt_cfg;
uint64_t ckt_min_ticks;

/* Decimal without sign or suffix; `fallback` when absent or malformed. */
CKT_FN static uint64_t env_u64(const char *name, uint64_t fallback) {
  const char *s = getenv(name);
  if (!s || !*s) return fallback;
  uint64_t v = 0;
  for (; *s; s++) {
    if (*s < '0' || *s > '9') return fallback;
    if (v > (UINT64_MAX - 9) / 10) return UINT64_MAX;
    v = v * 10 + (uint64_t)(*s - '0');
  }
  return v;
}

CKT_FN int ckt_config_load(void) {
  const char *dir = getenv(CKT_ENV_DIR);
  if (!dir || !*dir || strlen(dir) >= sizeof ckt_cfg.dir - 64) return 0;
  strcpy(ckt_cfg.dir, dir);
  size_t n = strlen(ckt_cfg.dir);
  while (n > 1 && ckt_cfg.dir[n - 1] == '/') ckt_cfg.dir[--n] = 0;

  uint64_t depth = env_u64(CKT_ENV_MAX_DEPTH, 0);
  ckt_cfg.max_depth = depth == 0 || depth > UINT32_MAX ? UINT32_MAX : (uint32_t)depth;
  ckt_cfg.min_time_ns = env_u64(CKT_ENV_MIN_TIME_NS, 0);

  uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE);
  if (page < 4096) page = 4096;
  uint64_t chunk = env_u64(CKT_ENV_CHUNK_KB, 1024) * 1024;
  if (chunk < 4 * page) chunk = 4 * page;
  if (chunk > (1u << 30)) chunk = 1u << 30;
  ckt_cfg.chunk_bytes = (uint32_t)(chunk / page * page);

  const char *clk = getenv(CKT_ENV_CLOCK);
  ckt_cfg.clock_choice = !clk                       ? CKT_CLOCK_AUTO
                         : strcmp(clk, "mono") == 0 ? CKT_CLOCK_MONO
                         : strcmp(clk, "tsc") == 0  ? CKT_CLOCK_TSC
                                                    : CKT_CLOCK_AUTO;
  return 1;
}
