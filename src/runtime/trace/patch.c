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
 * is left alone and counted; one line on stderr says how many. */
#include <link.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "list_file.h"
#include "modules.h"
#include "text_line.h"
#include "trace_contract.h"

extern char ckt_patch_entry[];  /* pg_entry.S */

struct site {
  uint64_t module, addr;
};
static struct site *sites;
static uint32_t nsites, npatched, nrefused;
static int later; /* CKT_ENV_PATCH_LATER */

/* What covkit trace attach reads (trace_contract.h). */
__attribute__((visibility("default"))) struct ckt_patch_table ckt_patch_table;
static struct ckt_patch_site *prepared;

/* Reads the whole list into `sites`. */
CKT_FN static int load_file(const char *path) {
  struct ckt_list l;
  if (!ckt_list_open(&l, path, CKT_PATCH_MAGIC)) return 0;
  int ok = 1;
  if (l.items) {
    sites = mmap(NULL, l.items * sizeof *sites, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (sites == MAP_FAILED) sites = NULL, ok = 0;
    prepared = ok ? mmap(NULL, l.items * sizeof *prepared, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)
                  : MAP_FAILED;
    if (prepared == MAP_FAILED) prepared = NULL, ok = 0;
  }
  const char *p, *eol;
  int more;
  while (ok && (more = ckt_list_line(&l, &p, &eol)) != 0) {
    ok = more > 0 && ckt_list_hex(&p, eol, &sites[nsites].addr) && ckt_list_path_hash(p, eol, &sites[nsites].module);
    if (ok) nsites++;
  }
  ckt_list_close(&l);
  return ok;
}

/* The NOPs GCC (0x90 x 5) and clang (nopl 8(%rax,%rax)) put there. */
CKT_FN static int is_nop5(const uint8_t *b) {
  static const uint8_t gcc[5] = {0x90, 0x90, 0x90, 0x90, 0x90};
  static const uint8_t clang[5] = {0x0f, 0x1f, 0x44, 0x00, 0x08};
  static const uint8_t nopl0[5] = {0x0f, 0x1f, 0x44, 0x00, 0x00};
  return memcmp(b, gcc, 5) == 0 || memcmp(b, clang, 5) == 0 || memcmp(b, nopl0, 5) == 0;
}

/* A page for the trampoline within +-2 GiB of [lo, hi): tried at 1 MiB
 * steps above, then below, with MAP_FIXED_NOREPLACE. */
CKT_FN static uint8_t *trampoline_near(uint64_t lo, uint64_t hi) {
  const uint64_t step = 1u << 20, reach = (1ull << 31) - (1u << 21);
  for (uint64_t d = step; d < reach - (hi - lo); d += step) {
    uint64_t cand[2] = {((hi + d) & ~(step - 1)), lo > d + step ? ((lo - d) & ~(step - 1)) - step : 0};
    for (int i = 0; i < 2; i++) {
      if (!cand[i]) continue;
      void *m = mmap((void *)cand[i], 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE,
                     -1, 0);
      if (m == MAP_FAILED) continue;
      if ((uint64_t)m != cand[i]) {  /* an old kernel took the hint as a hint */
        munmap(m, 4096);
        continue;
      }
      uint8_t *t = m;
      t[0] = 0xff, t[1] = 0x25;  /* jmp *0(%rip) */
      memset(t + 2, 0, 4);
      uint64_t target = (uint64_t)(uintptr_t)ckt_patch_entry;
      memcpy(t + 6, &target, 8);
      if (mprotect(m, 4096, PROT_READ | PROT_EXEC) != 0) {
        munmap(m, 4096);
        return NULL;
      }
      return t;
    }
  }
  return NULL;
}

struct scan_ctx {
  char exe[CKT_PATH_MAX];
};

/* Patches the sites of one loaded module. */
CKT_FN static int patch_module(struct dl_phdr_info *info, size_t size, void *arg) {
  (void)size;
  struct scan_ctx *ctx = arg;
  const char *name = info->dlpi_name && info->dlpi_name[0] ? info->dlpi_name : ctx->exe;
  uint64_t h = ckt_path_hash(name);
  uint32_t first = 0;
  while (first < nsites && sites[first].module != h) first++;
  if (first == nsites) return 0;
  uint64_t base = info->dlpi_addr, lo = UINT64_MAX, hi = 0;
  for (int i = 0; i < info->dlpi_phnum; i++) {
    const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
    if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X)) continue;
    if (base + ph->p_vaddr < lo) lo = base + ph->p_vaddr;
    if (base + ph->p_vaddr + ph->p_memsz > hi) hi = base + ph->p_vaddr + ph->p_memsz;
  }
  if (lo >= hi) return 0;
  uint8_t *tramp = trampoline_near(lo, hi);
  uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE);
  uint64_t plo = lo & ~(page - 1), phi = (hi + page - 1) & ~(page - 1);
  if (!tramp || (!later && mprotect((void *)plo, phi - plo, PROT_READ | PROT_WRITE | PROT_EXEC) != 0)) {
    for (uint32_t i = first; i < nsites; i++) nrefused += sites[i].module == h;
    return 0;
  }
  for (uint32_t i = first; i < nsites; i++) {
    if (sites[i].module != h) continue;
    uint64_t at = base + sites[i].addr;
    static const uint8_t endbr64[4] = {0xf3, 0x0f, 0x1e, 0xfa};
    if (at >= lo && at + 9 <= hi && memcmp((const void *)at, endbr64, 4) == 0) at += 4;  /* -fcf-protection */
    int64_t rel = (int64_t)((uint64_t)(uintptr_t)tramp - (at + 5));
    if (at < lo || at + 5 > hi || !is_nop5((const uint8_t *)at) || rel != (int32_t)rel) {
      nrefused++;
      continue;
    }
    struct ckt_patch_site *p = &prepared[npatched++];
    int32_t r32 = (int32_t)rel;
    p->at = at;
    p->on[0] = 0xe8;
    memcpy(p->on + 1, &r32, 4);
    memcpy(p->off, (const void *)at, 5);
    if (!later) memcpy((void *)at, p->on, 5);
  }
  if (!later) mprotect((void *)plo, phi - plo, PROT_READ | PROT_EXEC);
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
  const char *l8r = getenv(CKT_ENV_PATCH_LATER);
  later = l8r && strcmp(l8r, "1") == 0;
  struct scan_ctx ctx;
  ssize_t n = readlink("/proc/self/exe", ctx.exe, sizeof ctx.exe - 1);
  ctx.exe[n > 0 ? n : 0] = 0;
  dl_iterate_phdr(patch_module, &ctx);
  ckt_patch_table.magic = CKT_PATCH_TABLE_MAGIC;
  ckt_patch_table.count = npatched;
  ckt_patch_table.sites = (uint64_t)(uintptr_t)prepared;
  __atomic_store_n(&ckt_patch_table.ready, 1, __ATOMIC_RELEASE);
  if (npatched < nsites) {
    ckt_line_init(&l, "covkit-trace:");
    ckt_line_u64(&l, nsites - npatched);
    ckt_line_str(&l, " of");
    ckt_line_u64(&l, nsites);
    ckt_line_str(&l, later ? " patchable entries not prepared (not NOPs there, not loaded, or no trampoline)\n"
                           : " patchable entries not patched (not NOPs there, not loaded, or not writable)\n");
    if (write(2, l.buf, l.n) < 0) { /* nothing to do */ }
  }
}
