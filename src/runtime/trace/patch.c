/* -fpatchable-function-entry: the functions covkit named (CKT_ENV_PATCH,
 * format in trace_contract.h) get a 5-byte `call` written over the NOPs at
 * their entry, at load time, before main and the program's constructors
 * (a preloaded library is initialized first). With CKT_ENV_PATCH_LATER the
 * NOPs stay: the calls are prepared in `ckt_patch_table` and `covkit trace
 * attach` writes them into the stopped process (and the NOPs back). The
 * call goes to a trampoline mapped within reach of a rel32 near the module
 * (`jmp *0(%rip)` to ckt_patch_entry, anywhere in the address space), so
 * the hook sees the frame of __fentry__. Functions not named keep their NOPs and cost those
 * alone. A site whose bytes are not NOPs (a stale list, a rebuilt program)
 * is left alone and counted; one line on stderr says how many. Libraries
 * loaded later are patched by name when they load (patch_loads.c). */
#include <link.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "list_file.h"
#include "modules.h"
#include "patch_loads.h"
#include "patch_sites.h"
#include "text_line.h"
#include "trace_contract.h"

struct site {
  uint64_t module, addr;
};
static struct site *sites;
static uint32_t nsites, nrefused, nhandled;
static int patterns; /* some "?" line: libraries loaded later are watched */
/* Room in the table for the entries of libraries loaded later. */
enum { LATER_ROOM = 1 << 20 };

/* Reads the whole list: sites into `sites`, patterns to patch_loads.c. */
CKT_FN static int load_file(const char *path) {
  struct ckt_list l;
  if (!ckt_list_open(&l, path, CKT_PATCH_MAGIC)) return 0;
  int ok = 1;
  if (l.items) {
    sites = mmap(NULL, l.items * sizeof *sites, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (sites == MAP_FAILED) sites = NULL, ok = 0;
  }
  const char *p, *eol;
  int more;
  while (ok && (more = ckt_list_line(&l, &p, &eol)) != 0) {
    if (more > 0 && p < eol && *p == CKT_PATCH_LATER_PATTERN) {
      ok = ckt_patch_pattern_add(p + 1, eol);
      patterns = 1;
      continue;
    }
    ok = more > 0 && ckt_list_hex(&p, eol, &sites[nsites].addr) && ckt_list_path_hash(p, eol, &sites[nsites].module);
    if (ok) nsites++;
  }
  ckt_list_close(&l);
  return ok;
}

struct scan_ctx {
  char exe[CKT_PATH_MAX];
};

/* Patches the listed sites of one loaded module. */
CKT_FN static int patch_module(struct dl_phdr_info *info, size_t size, void *arg) {
  (void)size;
  struct scan_ctx *ctx = arg;
  const char *name = info->dlpi_name && info->dlpi_name[0] ? info->dlpi_name : ctx->exe;
  uint64_t h = ckt_path_hash(name);
  uint32_t first = 0, n = 0;
  while (first < nsites && sites[first].module != h) first++;
  if (first == nsites) return 0;
  for (uint32_t i = first; i < nsites; i++) n += sites[i].module == h;
  nhandled += n;
  struct ckt_text t;
  uint64_t *entries = mmap(NULL, n * sizeof *entries, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (entries == MAP_FAILED || !ckt_text_of(info, &t)) {
    nrefused += n;
    if (entries != MAP_FAILED) munmap(entries, n * sizeof *entries);
    return 0;
  }
  for (uint32_t i = first, k = 0; i < nsites; i++)
    if (sites[i].module == h) entries[k++] = t.base + sites[i].addr;
  nrefused += ckt_patch_entries(&t, entries, n);
  munmap(entries, n * sizeof *entries);
  return 0;
}

__attribute__((constructor(102))) CKT_FN static void patch_at_load(void) {
  const char *dir = getenv(CKT_ENV_DIR), *file = getenv(CKT_ENV_PATCH);
  if (!dir || !*dir || !file || !*file) return;
  int ok = load_file(file);
  struct ckt_line l;
  if (!ok) {
    ckt_line_init(&l, "covkit-trace: cannot read the patch list ");
    ckt_line_str(&l, file);
    ckt_line_str(&l, ": no function patched\n");
    if (write(2, l.buf, l.n) < 0) { /* nothing to do */ }
    return;
  }
  const char *later = getenv(CKT_ENV_PATCH_LATER);
  if (!ckt_patch_table_init(nsites + (patterns ? LATER_ROOM : 0), later && strcmp(later, "1") == 0)) {
    ckt_line_init(&l, "covkit-trace: no memory for the patch table: no function patched\n");
    if (write(2, l.buf, l.n) < 0) { /* nothing to do */ }
    return;
  }
  struct scan_ctx ctx;
  ssize_t n = readlink("/proc/self/exe", ctx.exe, sizeof ctx.exe - 1);
  ctx.exe[n > 0 ? n : 0] = 0;
  dl_iterate_phdr(patch_module, &ctx);
  nrefused += nsites - nhandled; /* listed modules not loaded */
  ckt_patch_table_ready();
  ckt_patch_watch_loads();
  if (nrefused) {
    ckt_line_init(&l, "covkit-trace:");
    ckt_line_u64(&l, nrefused);
    ckt_line_str(&l, " of");
    ckt_line_u64(&l, nsites);
    ckt_line_str(&l, " patchable entries not patched (not NOPs there, not loaded, or not writable)\n");
    if (write(2, l.buf, l.n) < 0) { /* nothing to do */ }
  }
}
