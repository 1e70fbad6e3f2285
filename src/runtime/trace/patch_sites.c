/* The patchable entries as the runtime prepares them (patch_sites.h): the
 * table `covkit trace attach` reads, and the writing of the calls. */
#include "patch_sites.h"

#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "trace_contract.h"

extern char ckt_patch_entry[]; /* pg_entry.S */

/* What covkit trace attach reads (trace_contract.h). */
__attribute__((visibility("default"))) struct ckt_patch_table ckt_patch_table;
static struct ckt_patch_site *prepared;
static uint64_t capacity, npatched;
static int later; /* CKT_ENV_PATCH_LATER */

CKT_FN int ckt_patch_table_init(uint64_t room, int patch_later) {
  later = patch_later;
  capacity = room;
  if (room) {
    prepared = mmap(NULL, room * sizeof *prepared, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
                    -1, 0);
    if (prepared == MAP_FAILED) {
      prepared = NULL, capacity = 0;
      return 0;
    }
  }
  ckt_patch_table.magic = CKT_PATCH_TABLE_MAGIC;
  ckt_patch_table.sites = (uint64_t)(uintptr_t)prepared;
  return 1;
}

CKT_FN void ckt_patch_table_ready(void) { __atomic_store_n(&ckt_patch_table.ready, 1, __ATOMIC_RELEASE); }

/* The NOPs GCC (0x90 x 5) and clang (nopl 8(%rax,%rax)) put there. */
CKT_FN static int is_nop5(const uint8_t *b) {
  static const uint8_t gcc[5] = {0x90, 0x90, 0x90, 0x90, 0x90};
  static const uint8_t clang[5] = {0x0f, 0x1f, 0x44, 0x00, 0x08};
  static const uint8_t nopl0[5] = {0x0f, 0x1f, 0x44, 0x00, 0x00};
  return memcmp(b, gcc, 5) == 0 || memcmp(b, clang, 5) == 0 || memcmp(b, nopl0, 5) == 0;
}

CKT_FN uint8_t *ckt_jump_page_near(uint64_t lo, uint64_t hi, const void *target_fn) {
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
      uint64_t target = (uint64_t)(uintptr_t)target_fn;
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

CKT_FN int ckt_text_of(const struct dl_phdr_info *info, struct ckt_text *t) {
  t->base = info->dlpi_addr, t->lo = UINT64_MAX, t->hi = 0;
  for (int i = 0; i < info->dlpi_phnum; i++) {
    const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
    if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X)) continue;
    if (t->base + ph->p_vaddr < t->lo) t->lo = t->base + ph->p_vaddr;
    if (t->base + ph->p_vaddr + ph->p_memsz > t->hi) t->hi = t->base + ph->p_vaddr + ph->p_memsz;
  }
  return t->lo < t->hi;
}

CKT_FN uint32_t ckt_patch_entries(const struct ckt_text *t, const uint64_t *entries, uint32_t n) {
  if (n == 0) return 0;
  uint8_t *tramp = ckt_jump_page_near(t->lo, t->hi, ckt_patch_entry); /* one per module */
  uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE);
  uint64_t plo = t->lo & ~(page - 1), phi = (t->hi + page - 1) & ~(page - 1);
  /* Written now unless attach will do it (then it may already have: the
   * table says whether the entries are on). */
  int write_now = !later || __atomic_load_n(&ckt_patch_table.on, __ATOMIC_RELAXED);
  if (!tramp || (write_now && mprotect((void *)plo, phi - plo, PROT_READ | PROT_WRITE | PROT_EXEC) != 0)) return n;
  uint32_t refused = 0;
  for (uint32_t i = 0; i < n; i++) {
    uint64_t at = entries[i];
    static const uint8_t endbr64[4] = {0xf3, 0x0f, 0x1e, 0xfa};
    if (at >= t->lo && at + 9 <= t->hi && memcmp((const void *)at, endbr64, 4) == 0) at += 4;  /* -fcf-protection */
    int64_t rel = (int64_t)((uint64_t)(uintptr_t)tramp - (at + 5));
    if (at < t->lo || at + 5 > t->hi || !is_nop5((const uint8_t *)at) || rel != (int32_t)rel ||
        npatched >= capacity) {
      refused++;
      continue;
    }
    struct ckt_patch_site *p = &prepared[npatched];
    int32_t r32 = (int32_t)rel;
    p->at = at;
    p->on[0] = 0xe8;
    memcpy(p->on + 1, &r32, 4);
    memcpy(p->off, (const void *)at, 5);
    if (write_now) memcpy((void *)at, p->on, 5);
    npatched++;
    __atomic_store_n(&ckt_patch_table.count, npatched, __ATOMIC_RELEASE);
  }
  if (write_now) mprotect((void *)plo, phi - plo, PROT_READ | PROT_EXEC);
  return refused;
}
