/* Filters and the on/off switch (see filters.h). */
#include "filters.h"

#include <link.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <sys/mman.h>

#include "config.h"
#include "elf_functions.h"
#include "name_patterns.h"
#include "list_file.h"
#include "modules.h"
#include "trace_contract.h"
#include "warn.h"

int ckt_filter_active;
static int has_only;     /* some -F function: outside them nothing is written */
static int has_triggers; /* some -T function */
static int tracing = 1;  /* the switch (atomic: signal handlers and triggers set it) */

/* The ranges of the filter file, grouped by module (path hash), sorted by
 * lo; the groups of libraries loaded later are appended as they are met
 * (room reserved; `nranges` published last, so readers take no lock). */
struct range {
  uint64_t module, lo, hi;
  uint8_t flags;
};
static struct range *ranges;
static uint32_t nranges, capacity;
enum { LATER_RANGES = 1 << 20 };

/* Patterns for libraries loaded later ("?" lines). */
enum { MAX_EXAMINED = 1024 };
static struct ckt_name_patterns later;
/* Modules (path hashes) whose symbols were matched against them. */
static uint64_t examined[MAX_EXAMINED];
static uint32_t nexamined;
static int examine_lock;
/* The load addresses of the modules there at start: covkit has searched
 * them already (with demangled names too), so the runtime never does. */
static uint64_t startup[MAX_EXAMINED];
static uint32_t nstartup;

CKT_FN static uint8_t flag_of(char c) {
  switch (c) {
    case CKT_FILTER_ONLY: return CKT_FF_ONLY;
    case CKT_FILTER_NOTRACE: return CKT_FF_NOTRACE;
    case CKT_FILTER_ON: return CKT_FF_ON;
    case CKT_FILTER_OFF: return CKT_FF_OFF;
    default: return 0;
  }
}

/* "?<actions> =name" or "?<actions> ~regex" (without the "?"). */
CKT_FN static int add_later(const char *p, const char *eol) {
  uint8_t flags = 0;
  for (; p < eol && *p != ' '; p++) flags |= flag_of(*p) ? flag_of(*p) : 0x80;
  if (p + 2 >= eol || *p != ' ' || flags == 0 || (flags & 0x80) || !ckt_name_pattern_add(&later, flags, p + 1, eol))
    return 0;
  if (flags & CKT_FF_ONLY) has_only = 1;
  if (flags & (CKT_FF_ON | CKT_FF_OFF)) has_triggers = 1;
  return 1;
}

/* Reads the whole list into `ranges` (and the patterns into `later`). */
CKT_FN static int load_file(const char *path) {
  struct ckt_list l;
  if (!ckt_list_open(&l, path, CKT_FILTERS_MAGIC)) return 0;
  int ok = 1;
  if (l.items) {
    capacity = l.items + LATER_RANGES;
    ranges = mmap(NULL, capacity * sizeof *ranges, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
                  -1, 0);
    if (ranges == MAP_FAILED) ranges = NULL, capacity = 0, ok = 0;
  }
  const char *p, *eol;
  int more;
  while (ok && (more = ckt_list_line(&l, &p, &eol)) != 0) {
    if (more < 0) {  /* a last line without its newline: not written whole */
      ok = 0;
      break;
    }
    if (p < eol && *p == CKT_PATCH_LATER_PATTERN) {
      ok = add_later(p + 1, eol);
      continue;
    }
    struct range *r = &ranges[nranges];
    r->flags = 0;
    for (; p < eol && *p != ' '; p++) r->flags |= flag_of(*p) ? flag_of(*p) : 0x80;
    ok = p < eol && r->flags != 0 && !(r->flags & 0x80);
    if (!ok) break;
    p++;
    ok = ckt_list_hex(&p, eol, &r->lo) && ckt_list_hex(&p, eol, &r->hi) && r->hi > r->lo &&
         ckt_list_path_hash(p, eol, &r->module) &&
         !(nranges && r->module == r[-1].module && r->lo < r[-1].lo); /* sorted */
    if (!ok) break;
    if (r->flags & CKT_FF_ONLY) has_only = 1;
    if (r->flags & (CKT_FF_ON | CKT_FF_OFF)) has_triggers = 1;
    nranges++;
  }
  ckt_list_close(&l);
  return ok;
}

CKT_FN int ckt_filters_load(void) {
  const char *file = getenv(CKT_ENV_FILTERS);
  const char *start = getenv(CKT_ENV_START);
  const char *sig = getenv(CKT_ENV_SIGNAL);
  if (file && *file) {
    if (!load_file(file)) {
      ckt_warn("cannot read the filter file", file);
      return 0;
    }
  }
  ckt_filter_active = nranges > 0 || later.n > 0 || (sig && *sig) || (start && strcmp(start, "off") == 0);
  return 1;
}

struct examine_ctx {
  uint64_t module;
  uint32_t n;
};

CKT_FN static void add_named(const char *name, uint64_t value, uint64_t size, void *arg) {
  struct examine_ctx *c = arg;
  uint8_t flags = ckt_name_patterns_match(&later, name);
  if (!flags || nranges + c->n >= capacity) return;
  struct range *r = &ranges[nranges + c->n++];
  r->module = c->module, r->lo = value, r->hi = value + (size ? size : 1), r->flags = flags;
}

CKT_FN static int cmp_range(const void *a, const void *b) {
  const struct range *x = a, *y = b;
  return x->lo < y->lo ? -1 : x->lo > y->lo;
}

/* A module the list does not name (loaded later): the first time, its
 * symbols are matched against the patterns and its group appended. */
CKT_FN static void examine(uint64_t module, const char *path) {
  while (__atomic_exchange_n(&examine_lock, 1, __ATOMIC_ACQUIRE)) sched_yield();
  int done = 0;
  for (uint32_t i = 0; i < nexamined && !done; i++) done = examined[i] == module;
  if (!done && nexamined < MAX_EXAMINED) {
    struct examine_ctx c = {module, 0};
    ckt_elf_functions(path, NULL, add_named, &c);
    qsort(&ranges[nranges], c.n, sizeof *ranges, cmp_range);
    examined[nexamined++] = module;
    __atomic_store_n(&nranges, nranges + c.n, __ATOMIC_RELEASE);
  }
  __atomic_store_n(&examine_lock, 0, __ATOMIC_RELEASE);
}

CKT_FN static int at_startup(uint64_t base) {
  for (uint32_t i = 0; i < nstartup; i++)
    if (startup[i] == base) return 1;
  return 0;
}

CKT_FN static int note_startup(struct dl_phdr_info *info, size_t size, void *arg) {
  (void)size, (void)arg;
  if (nstartup < MAX_EXAMINED) startup[nstartup++] = info->dlpi_addr;
  return 0;
}

/* Before main: every module loaded so far came with the program. */
__attribute__((constructor)) CKT_FN static void note_startup_modules(void) {
  const char *dir = getenv(CKT_ENV_DIR), *file = getenv(CKT_ENV_FILTERS);
  if (dir && *dir && file && *file) dl_iterate_phdr(note_startup, NULL);
}

/* The flags of the function at `fn`: its module's group of ranges (groups
 * are few: a linear scan), then a binary search by address. */
CKT_FN static uint8_t lookup(uintptr_t fn) {
  uint64_t base, module;
  char path[CKT_PATH_MAX];
  if ((nranges == 0 && later.n == 0) || !ckt_modules_locate(fn, &base, &module, later.n ? path : NULL, sizeof path))
    return 0;
  uint32_t n = __atomic_load_n(&nranges, __ATOMIC_ACQUIRE), first = 0;
  while (first < n && ranges[first].module != module) first++;
  if (first == n && later.n && !at_startup(base)) {
    examine(module, path);
    n = __atomic_load_n(&nranges, __ATOMIC_ACQUIRE);
    first = 0;
    while (first < n && ranges[first].module != module) first++;
  }
  if (first == n) return 0;
  uint32_t lo = first, hi = first;
  while (hi < n && ranges[hi].module == module) hi++;
  uint64_t a = fn - base;
  while (lo < hi) { /* the first range starting above a */
    uint32_t mid = lo + (hi - lo) / 2;
    if (ranges[mid].lo <= a) lo = mid + 1;
    else hi = mid;
  }
  return lo > first && a < ranges[lo - 1].hi ? ranges[lo - 1].flags : 0;
}

CKT_FN int ckt_filter_idle(void) { return !has_triggers && !__atomic_load_n(&tracing, __ATOMIC_RELAXED); }

CKT_FN int ckt_filter_push(struct ckt_thread *t, uint32_t d, uintptr_t fn, uint32_t id) {
  uint8_t flags = 0;
  if (id != CKT_NO_ID) {
    uint8_t *known = &t->fflags[CKT_ID(id)];
    if (!(*known & CKT_FF_KNOWN)) *known = (uint8_t)(lookup(fn) | CKT_FF_KNOWN);
    flags = *known & (uint8_t)~CKT_FF_KNOWN;
  }
  if (flags & CKT_FF_ON) __atomic_store_n(&tracing, 1, __ATOMIC_RELAXED);
  if (flags & CKT_FF_OFF) __atomic_store_n(&tracing, 0, __ATOMIC_RELAXED);
  if ((flags & CKT_FF_ONLY) && t->only_lo == CKT_NONE) t->only_lo = d;
  if ((flags & CKT_FF_NOTRACE) && t->notrace_lo == CKT_NONE) t->notrace_lo = d;
  if (!__atomic_load_n(&tracing, __ATOMIC_RELAXED) || t->notrace_lo != CKT_NONE) return 0;
  uint32_t base = 0;
  if (has_only) {
    if (t->only_lo == CKT_NONE) return 0;
    base = t->only_lo;  /* --max-depth counts from the outermost -F call */
  }
  return d - base < t->max_depth;
}

/* ---- the signal (CKT_ENV_SIGNAL) ---- */

CKT_FN static void on_signal(int sig, siginfo_t *info, void *context) {
  (void)sig;
  (void)context;
  int v = info && info->si_code == SI_QUEUE ? info->si_value.sival_int : 0;
  if (v == CKT_SIGNAL_VALUE_ON) __atomic_store_n(&tracing, 1, __ATOMIC_RELAXED);
  else if (v == CKT_SIGNAL_VALUE_OFF) __atomic_store_n(&tracing, 0, __ATOMIC_RELAXED);
  else __atomic_xor_fetch(&tracing, 1, __ATOMIC_RELAXED);
}

/* Installed at load time, not at the first call: a signal sent before the
 * program's first instrumented call must not kill it (SIGUSR2's default),
 * nor be undone by the start-up settings read at that call (so --trace-off
 * is applied here too, before the handler can run).
 * A handler the program installs later for the same signal replaces it. */
__attribute__((constructor)) CKT_FN static void install_signal(void) {
  const char *dir = getenv(CKT_ENV_DIR), *s = getenv(CKT_ENV_SIGNAL), *start = getenv(CKT_ENV_START);
  if (!dir || !*dir) return;
  if (start && strcmp(start, "off") == 0) __atomic_store_n(&tracing, 0, __ATOMIC_RELAXED);
  if (!s || !*s) return;
  int sig = 0;
  for (; *s; s++) {
    if (*s < '0' || *s > '9' || sig > 1000) return;
    sig = sig * 10 + (*s - '0');
  }
  if (sig <= 0 || sig >= NSIG || sig == SIGKILL || sig == SIGSTOP) return;
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = on_signal;
  sa.sa_flags = SA_SIGINFO | SA_RESTART;
  sigemptyset(&sa.sa_mask);
  sigaction(sig, &sa, NULL);
}
