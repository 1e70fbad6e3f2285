/* --patch in libraries loaded after start-up (dlopen): covkit names the
 * functions of PROG and its start-up libraries before the run, but cannot
 * know what PROG will load, so the list also carries the patterns; each
 * module the dynamic linker adds later has its symbol table read from its
 * file and the entries of the functions the patterns name patched (as
 * patch.c does at load). Symbol names are matched as written (a C name, a
 * C++ mangled one): the runtime does not demangle.
 *
 * The dynamic linker calls _dl_debug_state (the address in _r_debug.r_brk,
 * where debuggers put their breakpoint) each time its list of modules
 * changes; its first bytes, a `ret` and the alignment padding after it, are
 * replaced with a jump to on_loader_event, which returns for it. The hook
 * is only installed when patterns were given. */
#include "patch_loads.h"

#include <link.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "elf_functions.h"
#include "name_patterns.h"
#include "patch_sites.h"
#include "trace_contract.h"

enum { MAX_SEEN = 4096 };

static struct ckt_name_patterns patterns;

/* Modules already looked at, by load address. */
static uint64_t seen[MAX_SEEN];
static uint32_t nseen;

CKT_FN int ckt_patch_pattern_add(const char *line, const char *eol) {
  return ckt_name_pattern_add(&patterns, 1, line, eol);
}

CKT_FN static int was_seen(uint64_t base) {
  for (uint32_t i = 0; i < nseen; i++)
    if (seen[i] == base) return 1;
  return 0;
}

CKT_FN static int mark_seen(struct dl_phdr_info *info, size_t size, void *arg) {
  (void)size, (void)arg;
  if (nseen < MAX_SEEN && !was_seen(info->dlpi_addr)) seen[nseen++] = info->dlpi_addr;
  return 0;
}

CKT_FN static int cmp_u64(const void *a, const void *b) {
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return x < y ? -1 : x > y;
}

struct collect {
  uint64_t base, *entries;
  uint32_t n, cap;
};

CKT_FN static void collect_named(const char *name, uint64_t value, uint64_t size, void *arg) {
  (void)size;
  struct collect *c = arg;
  if (ckt_name_patterns_match(&patterns, name) && c->n < c->cap) c->entries[c->n++] = c->base + value;
}

/* Patches the named entries of one module loaded since the last look (one
 * built with patchable entries: it has their section). */
CKT_FN static void patch_loaded(struct dl_phdr_info *info) {
  struct ckt_text t;
  if (!info->dlpi_name || !info->dlpi_name[0] || !ckt_text_of(info, &t)) return; /* as dlopen named it */
  struct collect c = {t.base, NULL, 0, 1 << 20};
  c.entries = mmap(NULL, c.cap * sizeof *c.entries, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
                   -1, 0);
  if (c.entries == MAP_FAILED) return;
  if (ckt_elf_functions(info->dlpi_name, "__patchable_function_entries", collect_named, &c) && c.n) {
    qsort(c.entries, c.n, sizeof *c.entries, cmp_u64);
    uint32_t u = 0; /* aliases: one entry each */
    for (uint32_t i = 0; i < c.n; i++)
      if (u == 0 || c.entries[u - 1] != c.entries[i]) c.entries[u++] = c.entries[i];
    ckt_patch_entries(&t, c.entries, u);
  }
  munmap(c.entries, c.cap * sizeof *c.entries);
}

CKT_FN static int scan_new(struct dl_phdr_info *info, size_t size, void *arg) {
  (void)size, (void)arg;
  if (was_seen(info->dlpi_addr)) return 0;
  if (nseen < MAX_SEEN) seen[nseen++] = info->dlpi_addr;
  patch_loaded(info);
  return 0;
}

/* Reached by a jump from _dl_debug_state, inside dlopen or dlclose with the
 * loader's lock held: only after a change is complete (RT_CONSISTENT).
 * Modules gone (dlclose) are forgotten, so that one loaded later at the
 * same address is looked at. */
CKT_FN static int still_there(struct dl_phdr_info *info, size_t size, void *arg) {
  (void)size;
  uint8_t *alive = arg;
  for (uint32_t i = 0; i < nseen; i++)
    if (seen[i] == info->dlpi_addr) alive[i] = 1;
  return 0;
}

CKT_FN static void on_loader_event(void) {
  if (_r_debug.r_state != RT_CONSISTENT) return;
  uint8_t alive[MAX_SEEN];
  memset(alive, 0, nseen);
  dl_iterate_phdr(still_there, alive);
  uint32_t kept = 0;
  for (uint32_t i = 0; i < nseen; i++)
    if (alive[i]) seen[kept++] = seen[i];
  nseen = kept;
  dl_iterate_phdr(scan_new, NULL);
}

/* _dl_debug_state's first 5 bytes may be replaced: a `ret` (after an
 * endbr64, kept) followed by padding up to the next 16-byte boundary, which
 * nothing executes. */
CKT_FN static uint8_t *hook_site(void) {
  uint8_t *p = (uint8_t *)_r_debug.r_brk;
  if (!p) return NULL;
  static const uint8_t endbr64[4] = {0xf3, 0x0f, 0x1e, 0xfa};
  if (memcmp(p, endbr64, 4) == 0) p += 4;
  if (p[0] != 0xc3) return NULL;
  uint64_t end = ((uint64_t)(uintptr_t)p + 16) & ~(uint64_t)15;
  if ((uint64_t)(uintptr_t)p + 5 > end) return NULL;
  for (uint8_t *q = p + 1; (uint64_t)(uintptr_t)q < end; q++) /* padding: NOP encodings or int3 */
    if (*q != 0x90 && *q != 0x66 && *q != 0x2e && *q != 0x0f && *q != 0x1f && *q != 0x84 && *q != 0x00 &&
        *q != 0x40 && *q != 0x44 && *q != 0x80 && *q != 0xcc)
      return NULL;
  return p;
}

CKT_FN void ckt_patch_watch_loads(void) {
  if (patterns.n == 0) return;
  dl_iterate_phdr(mark_seen, NULL);
  uint8_t *site = hook_site();
  uint64_t at = (uint64_t)(uintptr_t)site;
  uint8_t *page = site ? ckt_jump_page_near(at, at + 5, (const void *)on_loader_event) : NULL;
  uint64_t pagesize = (uint64_t)sysconf(_SC_PAGESIZE);
  uint64_t lo = at & ~(pagesize - 1), hi = (at + 5 + pagesize - 1) & ~(pagesize - 1);
  if (!page || mprotect((void *)lo, hi - lo, PROT_READ | PROT_WRITE | PROT_EXEC) != 0) {
    static const char msg[] = "covkit-trace: libraries loaded later cannot be watched: --patch applies to the "
                              "program and its start-up libraries only\n";
    if (write(2, msg, sizeof msg - 1) < 0) { /* nothing to do */ }
    return;
  }
  uint8_t jmp[5] = {0xe9};
  int32_t rel = (int32_t)((int64_t)(uintptr_t)page - (int64_t)(at + 5)); /* in reach: ckt_jump_page_near */
  memcpy(jmp + 1, &rel, 4);
  memcpy(site, jmp, 5);
  mprotect((void *)lo, hi - lo, PROT_READ | PROT_EXEC);
}
