/* Pointing the PLT slots of instrumented modules at stubs (plt_hooks.h), and
 * the C half of a stub's entry (plt_entry.S). Cold paths, except
 * ckt_plt_enter: one load and the -pg enter. */
#ifndef _GNU_SOURCE  /* the build defines it (src/runtime/CMakeLists.txt) */
#define _GNU_SOURCE
#endif
#include "plt_hooks.h"

#include <dlfcn.h>
#include <sched.h>
#include <elf.h>
#include <link.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "modules.h"
#include "patch_sites.h"
#include "pg_hooks.h"
#include "plt_stubs.h"
#include "process_meta.h"
#include "trace_contract.h"

extern char ckt_plt_entry[] __attribute__((visibility("hidden")));
extern struct ckt_patch_table ckt_patch_table; /* patch_sites.c */
CKT_FN uintptr_t ckt_plt_enter(uintptr_t *slot, uint32_t i) __attribute__((visibility("hidden")));

CKT_FN uintptr_t ckt_plt_enter(uintptr_t *slot, uint32_t i) {
  const uintptr_t target = ckt_plt_slots[i].target;
  ckt_pg_enter(slot, ckt_plt_stub_address(i), CKT_HOOK_PLT);
  return target;
}

/* ---- the modules, copied out of dl_iterate_phdr ---- */

enum { MAX_MODS = 1024, MAX_EXEC = 4 };

struct mod {
  uintptr_t base;
  const ElfW(Phdr) *phdr;
  uint16_t phnum;
  uint8_t nexec, instrumented, runtime;
  uintptr_t lo[MAX_EXEC], hi[MAX_EXEC];  /* executable segments, absolute */
};

struct mods {
  uint32_t n;
  struct mod m[MAX_MODS];
};

CKT_FN static int holds(const struct mod *m, uintptr_t a) {
  for (uint32_t s = 0; s < m->nexec; s++)
    if (a >= m->lo[s] && a < m->hi[s]) return 1;
  return 0;
}

CKT_FN static int copy_cb(struct dl_phdr_info *info, size_t size, void *arg) {
  (void)size;
  struct mods *ms = arg;
  if (ms->n == MAX_MODS) return 1;
  struct mod *m = &ms->m[ms->n];
  memset(m, 0, sizeof *m);
  m->base = info->dlpi_addr;
  m->phdr = info->dlpi_phdr;
  m->phnum = info->dlpi_phnum;
  for (uint16_t i = 0; i < info->dlpi_phnum && m->nexec < MAX_EXEC; i++) {
    const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
    if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X)) continue;
    m->lo[m->nexec] = info->dlpi_addr + ph->p_vaddr;
    m->hi[m->nexec] = info->dlpi_addr + ph->p_vaddr + ph->p_memsz;
    m->nexec++;
  }
  m->runtime = holds(m, (uintptr_t)ckt_plt_entry);
  ms->n++;
  return 0;
}

/* ---- one module's dynamic section ---- */

struct dyn {
  const ElfW(Rela) *jmprel, *rela;
  size_t njmprel, nrela;
  const ElfW(Sym) *symtab;
  const char *strtab;
  size_t strsz;
  const ElfW(Half) *versym;
  const ElfW(Verneed) *verneed;
  size_t nverneed;
  uintptr_t relro_lo, relro_hi;
};

/* glibc relocates the pointers of a loaded object's dynamic section in
 * place (not the vdso's, whose section is read-only). */
CKT_FN static uintptr_t dyn_ptr(const struct mod *m, ElfW(Addr) v) { return v < m->base ? m->base + v : v; }

CKT_FN static int read_dyn(const struct mod *m, struct dyn *d) {
  memset(d, 0, sizeof *d);
  const ElfW(Dyn) *dyn = NULL;
  for (uint16_t i = 0; i < m->phnum; i++) {
    const ElfW(Phdr) *ph = &m->phdr[i];
    if (ph->p_type == PT_DYNAMIC) dyn = (const ElfW(Dyn) *)(m->base + ph->p_vaddr);
    if (ph->p_type == PT_GNU_RELRO) {
      d->relro_lo = m->base + ph->p_vaddr;
      d->relro_hi = d->relro_lo + ph->p_memsz;
    }
  }
  if (!dyn) return 0;
  size_t pltrelsz = 0, relasz = 0;
  int rela = 1;
  for (; dyn->d_tag != DT_NULL; dyn++) {
    switch (dyn->d_tag) {
      case DT_JMPREL: d->jmprel = (const ElfW(Rela) *)dyn_ptr(m, dyn->d_un.d_ptr); break;
      case DT_PLTRELSZ: pltrelsz = dyn->d_un.d_val; break;
      case DT_PLTREL: rela = dyn->d_un.d_val == DT_RELA; break;
      case DT_RELA: d->rela = (const ElfW(Rela) *)dyn_ptr(m, dyn->d_un.d_ptr); break;
      case DT_RELASZ: relasz = dyn->d_un.d_val; break;
      case DT_SYMTAB: d->symtab = (const ElfW(Sym) *)dyn_ptr(m, dyn->d_un.d_ptr); break;
      case DT_STRTAB: d->strtab = (const char *)dyn_ptr(m, dyn->d_un.d_ptr); break;
      case DT_STRSZ: d->strsz = dyn->d_un.d_val; break;
      case DT_VERSYM: d->versym = (const ElfW(Half) *)dyn_ptr(m, dyn->d_un.d_ptr); break;
      case DT_VERNEED: d->verneed = (const ElfW(Verneed) *)dyn_ptr(m, dyn->d_un.d_ptr); break;
      case DT_VERNEEDNUM: d->nverneed = dyn->d_un.d_val; break;
      default: break;
    }
  }
  if (!rela || !d->symtab || !d->strtab) return 0;
  d->njmprel = d->jmprel ? pltrelsz / sizeof *d->jmprel : 0;
  d->nrela = d->rela ? relasz / sizeof *d->rela : 0;
  return 1;
}

/* The name of symbol `s`, NULL when it is no plain name a .meta line can
 * carry (a hostile module must not write lines of its own there). */
CKT_FN static const char *sym_name(const struct dyn *d, uint32_t s, size_t *len) {
  const ElfW(Sym) *sym = &d->symtab[s];
  if (sym->st_name >= d->strsz) return NULL;
  const char *name = d->strtab + sym->st_name;
  size_t n = 0;
  while (n < CKT_PLT_NAME_MAX && n < d->strsz - sym->st_name && name[n]) {
    if (name[n] <= ' ' || name[n] > '~') return NULL;
    n++;
  }
  if (n == 0 || n >= CKT_PLT_NAME_MAX || name[n]) return NULL;
  *len = n;
  return name;
}

CKT_FN static int in_list(const char *name, const char *const *list) {
  for (; *list; list++)
    if (strcmp(name, *list) == 0) return 1;
  return 0;
}

static const char *const hook_names[] = {"__cyg_profile_func_enter", "__cyg_profile_func_exit", "mcount", "_mcount",
                                         "__fentry__", NULL};

/* Never hooked: the hooks; what uftrace leaves alone (start-up, exception
 * machinery, whose frames unwinding handles); functions that return twice
 * or switch stacks (a replaced return address saved in a jmp_buf or a
 * context would be jumped to later, into a trampoline whose frame is gone). */
static const char *const skipped_names[] = {
    "__cyg_profile_func_enter", "__cyg_profile_func_exit", "mcount", "_mcount", "__fentry__", "__gnu_mcount_nc",
    "_mcleanup", "__libc_start_main", "__cxa_throw", "__cxa_rethrow", "__cxa_begin_catch", "__cxa_end_catch",
    "__cxa_finalize", "_Unwind_Resume", "_Unwind_RaiseException", "_Unwind_Resume_or_Rethrow",
    "setjmp", "_setjmp", "sigsetjmp", "__sigsetjmp", "savectx", "getcontext", "swapcontext", "setcontext",
    "vfork", "__vfork", "clone", "__clone", "clone3", NULL};

/* Whether the module's code calls a hook (its relocations name one). */
CKT_FN static int references_hooks(const struct dyn *d) {
  const ElfW(Rela) *tables[2] = {d->jmprel, d->rela};
  const size_t counts[2] = {d->njmprel, d->nrela};
  for (int t = 0; t < 2; t++)
    for (size_t i = 0; i < counts[t]; i++) {
      uint32_t s = (uint32_t)ELF64_R_SYM(tables[t][i].r_info);
      size_t len;
      const char *name = s ? sym_name(d, s, &len) : NULL;
      if (name && in_list(name, hook_names)) return 1;
    }
  return 0;
}

/* Whether a patched entry (--patch) lies in the module. */
CKT_FN static int has_patched_entries(const struct mod *m) {
  const struct ckt_patch_table *t = &ckt_patch_table;
  uint64_t n = __atomic_load_n(&t->count, __ATOMIC_ACQUIRE);
  const struct ckt_patch_site *s = (const struct ckt_patch_site *)(uintptr_t)t->sites;
  for (uint64_t i = 0; s && i < n; i++)
    if (holds(m, (uintptr_t)s[i].at)) return 1;
  return 0;
}

/* The version the module asks of symbol s ("GLIBC_2.2.5"), or NULL. */
CKT_FN static const char *version_of(const struct dyn *d, uint32_t s) {
  if (!d->versym || !d->verneed) return NULL;
  ElfW(Half) v = d->versym[s] & 0x7fff;
  if (v < 2) return NULL;
  const ElfW(Verneed) *vn = d->verneed;
  for (size_t k = 0; k < d->nverneed; k++) {
    const ElfW(Vernaux) *a = (const ElfW(Vernaux) *)((const char *)vn + vn->vn_aux);
    for (ElfW(Half) j = 0; j < vn->vn_cnt; j++) {
      if (a->vna_other == v) return a->vna_name < d->strsz ? d->strtab + a->vna_name : NULL;
      if (!a->vna_next) break;
      a = (const ElfW(Vernaux) *)((const char *)a + a->vna_next);
    }
    if (!vn->vn_next) break;
    vn = (const ElfW(Verneed) *)((const char *)vn + vn->vn_next);
  }
  return NULL;
}

/* A slot the dynamic linker has not bound yet points at its own lazy PLT
 * entry: `push $index` (after an endbr64) in the module's code. */
CKT_FN static int unbound(const struct mod *m, uintptr_t cur, size_t index) {
  if (!holds(m, cur) || !holds(m, cur + 8)) return 0;
  const uint8_t *p = (const uint8_t *)cur;
  if (p[0] == 0xf3 && p[1] == 0x0f && p[2] == 0x1e && p[3] == 0xfa) p += 4;
  if (p[0] != 0x68) return 0;
  uint32_t imm;
  memcpy(&imm, p + 1, sizeof imm);
  return imm == index;
}

struct candidate {
  uintptr_t *got;
  uintptr_t target;
  const char *name;
  size_t len;
  uintptr_t relro_lo, relro_hi;
};

/* Points `got` at a new stub for its target; 0 when none is left. */
CKT_FN static int hook_slot(const struct candidate *c) {
  uintptr_t cur = __atomic_load_n(c->got, __ATOMIC_RELAXED);
  if (ckt_plt_is_stub(cur)) return 1;  /* hooked meanwhile (another thread's refresh) */
  uint32_t i = ckt_plt_stub_new(c->target, c->name, c->len);
  if (i == CKT_PLT_NONE) return 0;
  const uintptr_t a = (uintptr_t)c->got;
  const int relro = a >= c->relro_lo && a < c->relro_hi;
  const uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
  void *lo = (void *)(a & ~(page - 1));
  if (relro && mprotect(lo, page, PROT_READ | PROT_WRITE) != 0) return 1;  /* left as it was */
  __atomic_store_n(c->got, ckt_plt_stub_address(i), __ATOMIC_RELEASE);
  if (relro) mprotect(lo, page, PROT_READ);
  return 1;
}

static int hook_lock_word;
static int enabled;

CKT_FN static void hook_one(const struct mods *ms, const struct mod *m) {
  struct dyn d;
  if (!read_dyn(m, &d) || !d.jmprel) return;
  for (size_t r = 0; r < d.njmprel; r++) {
    const ElfW(Rela) *rel = &d.jmprel[r];
    if (ELF64_R_TYPE(rel->r_info) != R_X86_64_JUMP_SLOT) continue;
    uint32_t s = (uint32_t)ELF64_R_SYM(rel->r_info);
    size_t len;
    const char *name = s ? sym_name(&d, s, &len) : NULL;
    if (!name || in_list(name, skipped_names)) continue;
    struct candidate c = {(uintptr_t *)(m->base + rel->r_offset), 0, name, len, d.relro_lo, d.relro_hi};
    uintptr_t cur = __atomic_load_n(c.got, __ATOMIC_RELAXED);
    if (ckt_plt_is_stub(cur)) continue;
    if (unbound(m, cur, r)) {
      const char *version = version_of(&d, s);
      void *p = version ? dlvsym(RTLD_DEFAULT, name, version) : dlsym(RTLD_DEFAULT, name);
      if (!p) continue;  /* cannot be bound here: left to the dynamic linker, not recorded */
      cur = (uintptr_t)p;
    }
    /* A function of an instrumented module records its own calls. */
    int instrumented_target = 0;
    for (uint32_t k = 0; k < ms->n && !instrumented_target; k++)
      instrumented_target = ms->m[k].instrumented && holds(&ms->m[k], cur);
    if (instrumented_target) continue;
    c.target = cur;
    while (__atomic_exchange_n(&hook_lock_word, 1, __ATOMIC_ACQUIRE)) sched_yield();
    const int room = hook_slot(&c);
    __atomic_store_n(&hook_lock_word, 0, __ATOMIC_RELEASE);
    if (!room) return;
  }
}

CKT_FN void ckt_plt_hook_modules(void) {
  if (!enabled) return;
  struct mods *ms = mmap(NULL, sizeof *ms, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (ms == MAP_FAILED) return;
  ms->n = 0;
  dl_iterate_phdr(copy_cb, ms);  /* no lock of ours is held while the loader's is */
  for (uint32_t i = 0; i < ms->n; i++) {
    struct mod *m = &ms->m[i];
    struct dyn d;
    m->instrumented = !m->runtime && read_dyn(m, &d) && (references_hooks(&d) || has_patched_entries(m));
  }
  for (uint32_t i = 0; i < ms->n; i++)
    if (ms->m[i].instrumented) hook_one(ms, &ms->m[i]);
  munmap(ms, sizeof *ms);
}

__attribute__((constructor(103))) CKT_FN static void hook_at_load(void) {
  const char *dir = getenv(CKT_ENV_DIR), *on = getenv(CKT_ENV_LIBCALL);
  if (!dir || !*dir || !on || strcmp(on, "1") != 0) return;
  if (!ckt_plt_stubs_init((uintptr_t)ckt_plt_entry)) return;
  enabled = 1;
  ckt_modules_after_refresh = ckt_plt_hook_modules;
  ckt_plt_hook_modules();
}
