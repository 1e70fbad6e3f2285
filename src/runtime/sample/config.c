/* The runtime's settings from the environment (sample_contract.h), read in
 * the constructor: out-of-range values fall back to the defaults rather
 * than stop the program. */
#include <stdlib.h>
#include <string.h>

#include "sample_runtime.h"

struct cks_config cks_cfg;
int cks_active, cks_bp_active;

static uint64_t number(const char *name, uint64_t dflt, uint64_t lo, uint64_t hi) {
  const char *s = getenv(name);
  if (!s || !*s) return dflt;
  char *end;
  unsigned long long v = strtoull(s, &end, 10);
  if (*end || v < lo || v > hi) return dflt;
  return v;
}

CKS_FN int cks_read_config(void) {
  const char *dir = getenv(CKS_ENV_DIR);
  if (!dir || !*dir || strlen(dir) >= sizeof cks_cfg.dir - 64) return 0;
  strcpy(cks_cfg.dir, dir);
  const char *mode = getenv(CKS_ENV_MODE);
  cks_cfg.breakpoint_mode = mode && strcmp(mode, "breakpoint") == 0;
  cks_cfg.branch_mode = !cks_cfg.breakpoint_mode && !(mode && strcmp(mode, "pc") == 0);
  if (cks_cfg.breakpoint_mode) {
    const char *sock = getenv(CKS_ENV_PLAN_SOCKET);
    if (!sock || !*sock || strlen(sock) >= sizeof cks_cfg.plan_socket) return 0;
    strcpy(cks_cfg.plan_socket, sock);
  }
  /* below 100 us the timer would only measure the handler itself */
  cks_cfg.period_ns = number(CKS_ENV_PERIOD_NS, CKS_DEFAULT_PERIOD_NS, 100000, 3600ull * 1000000000ull);
  cks_cfg.vector = (uint32_t)number(CKS_ENV_VECTOR, CKS_DEFAULT_VECTOR, CKS_MIN_VECTOR, CKS_MAX_VECTOR);
  cks_cfg.step_cap = (uint32_t)number(CKS_ENV_STEP_CAP, CKS_DEFAULT_STEP_CAP, 16, CKS_MAX_STEP_CAP);
  const char *stepping = getenv(CKS_ENV_STEPPING);
  /* "block" uses every debug register; "block1".."block3" fewer (benches,
   * tests: "block1" stops at every conditional branch); "decode" every
   * register without the look-ahead interpreter (as before it) */
  cks_cfg.block_step = CKS_BP_SLOTS;
  cks_cfg.look_ahead = 1;
  if (stepping && strcmp(stepping, "instruction") == 0)
    cks_cfg.block_step = 0;
  else if (stepping && strcmp(stepping, "decode") == 0) /* block stepping without the interpreter (benches, tests) */
    cks_cfg.look_ahead = 0;
  else if (stepping && strncmp(stepping, "block", 5) == 0 && stepping[5] >= '1' && stepping[5] < '0' + CKS_BP_SLOTS &&
           !stepping[6])
    cks_cfg.block_step = (uint32_t)(stepping[5] - '0');
  cks_cfg.step_stats = getenv(CKS_ENV_STEP_STATS) != NULL;
  return 1;
}
