/* Breakpoint mode inside the process: one-shot int3s planted by the
 * runtime itself and taken by its own SIGTRAP handler, which puts the
 * original byte back, rewinds the thread onto it and writes a HIT record.
 * A site costs one signal (8 us of it on this VM, 2-4 us on bare metal)
 * the first time it runs and nothing after; covkit's ptrace recorder pays a
 * stop of the whole thread (~35 us here) instead.
 *
 * The plan (where to plant) comes from covkit's plan server, per object.
 * Objects loaded later are followed as a debugger does: a persistent int3
 * on the dynamic linker's hook (_r_debug.r_brk, called once the list of
 * objects is consistent, before a dlopen'ed object's initializers run) makes
 * the handler plant the new objects and forget the ones dlclose removed,
 * then return from the hook for it (the hook is a bare return).
 *
 * An object's planted text is mapped from the recording's shared .text
 * file when it can be (shared_files.c: no page written, and a byte put
 * back is put back in every process); otherwise text is written through
 * /proc/self/mem (no page ever made writable, no lock), or, where that
 * cannot be opened, by mprotect around the store.
 * Tables are published with release stores and never freed, so the handler
 * reads them without a lock; they are only changed at start-up and inside
 * the linker's hook, which the linker's own lock serializes. */
#include <elf.h>
#include <fcntl.h>
#include <link.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <ucontext.h>
#include <unistd.h>

#include "sample_runtime.h"

#define INT3 0xcc
#define MAX_MODULES 1024
#define PAGE 4096ull

struct bp_module {
  uint64_t lo, hi;    /* [lo, hi): from the first site to past the last */
  uint64_t *sites;    /* ascending addresses in the process */
  unsigned char *orig; /* the bytes the int3s replaced */
  unsigned char *hit;  /* 1 once hit (shared with the recording's other processes: cks_shared_hits) */
  uint32_t count;
  int prot;           /* of its executable segments, for the mprotect fallback */
  struct cks_text text; /* mapped from the recording's shared .text file, or fd -1 */
  int dead;           /* dlclose'd: never matched again */
};

static struct bp_module modules[MAX_MODULES];
static uint32_t nmodules; /* published with release */

/* Objects asked about already (planted or not), by load bias. */
struct seen_object {
  uint64_t base;
  uint32_t module; /* index + 1 in modules[]; 0: nothing planted */
  int present;     /* found in the last walk */
};
static struct seen_object seen[MAX_MODULES];
static uint32_t nseen;
static int plan_conn = -1;

static uint64_t r_brk; /* the linker's hook, 0 when not followed */
static int warned_full, warned_restore, warned_shape;

/* ---- writing text ---- */

/* /proc/self/mem, kept open between traps (opening it costs as much as the
 * write). Checked before each use: a descriptor the program closed and
 * reused is another file (st_dev, st_ino), and a fork's child, whose
 * inherited descriptor still writes its parent's memory, gets it closed by
 * the fork handler; the byte is read back either way. */
static int mem_fd = -1;
static dev_t mem_dev;
static ino_t mem_ino;

static int mem_descriptor(void) {
  struct stat st;
  if (mem_fd >= 0 && fstat(mem_fd, &st) == 0 && st.st_dev == mem_dev && st.st_ino == mem_ino) return mem_fd;
  mem_fd = -1; /* not ours any more: never closed, it may be the program's */
  int fd = open("/proc/self/mem", O_RDWR | O_CLOEXEC);
  if (fd < 0) return -1;
  int high = fcntl(fd, F_DUPFD_CLOEXEC, 500);
  if (high >= 0) {
    close(fd);
    fd = high;
  }
  if (fstat(fd, &st) != 0) {
    close(fd);
    return -1;
  }
  mem_dev = st.st_dev;
  mem_ino = st.st_ino;
  return mem_fd = fd;
}

CKS_FN void cks_breakpoints_forked(void) {
  if (mem_fd >= 0) close(mem_fd);
  mem_fd = -1;
}

static int written(uint64_t at, const void *bytes, size_t size) { return memcmp((const void *)at, bytes, size) == 0; }

static int write_mem(uint64_t at, const void *bytes, size_t size, int prot) {
  for (int attempt = 0; attempt < 2; ++attempt) {
    int fd = mem_descriptor();
    if (fd < 0) break;
    if (pwrite(fd, bytes, size, (off_t)at) == (ssize_t)size && written(at, bytes, size)) return 1;
    close(fd); /* another process's memory (a fork without the fork handler): open ours */
    mem_fd = -1;
  }
  /* Without /proc (a chroot, say): the pages writable for the store. */
  uint64_t lo = at & ~(PAGE - 1), hi = (at + size + PAGE - 1) & ~(PAGE - 1);
  if (mprotect((void *)lo, hi - lo, prot | PROT_WRITE) != 0) return 0;
  memcpy((void *)at, bytes, size);
  mprotect((void *)lo, hi - lo, prot);
  return 1;
}

static int prot_of(uint32_t flags) {
  return (flags & PF_R ? PROT_READ : 0) | (flags & PF_W ? PROT_WRITE : 0) | (flags & PF_X ? PROT_EXEC : 0);
}

/* ---- the handler's side ---- */

static void write_hit(uint64_t at) {
  uint64_t rec[CKS_HIT_FIXED / 8] = {0};
  rec[CKS_HIT_ADDRESS / 8] = at;
  cks_write_record(rec, CKS_HIT_FIXED, CKS_KIND_HIT, 0);
}

/* The module and index of site `at`, newest module first (a range freed by
 * dlclose and reused is matched by the object mapped there now). */
static int find_site(uint64_t at, struct bp_module **out, uint32_t *index) {
  uint32_t n = __atomic_load_n(&nmodules, __ATOMIC_ACQUIRE);
  for (uint32_t i = n; i-- > 0;) {
    struct bp_module *m = &modules[i];
    if (at < m->lo || at >= m->hi || __atomic_load_n(&m->dead, __ATOMIC_RELAXED)) continue;
    uint32_t lo = 0, hi = m->count;
    while (lo < hi) {
      uint32_t mid = lo + (hi - lo) / 2;
      if (m->sites[mid] < at)
        lo = mid + 1;
      else
        hi = mid;
    }
    if (lo < m->count && m->sites[lo] == at) {
      *out = m;
      *index = lo;
      return 1;
    }
    return 0;
  }
  return 0;
}

static int restore(const struct bp_module *m, uint64_t at, uint32_t i) {
  if (__atomic_load_n(&m->text.fd, __ATOMIC_ACQUIRE) >= 0 && cks_shared_text_restore(&m->text, at, m->orig[i])) return 1;
  /* Private text; shared text whose page the program wrote (its own copy
   * now) or whose descriptor it closed: /proc/self/mem writes this
   * process's copy of the page. */
  return write_mem(at, &m->orig[i], 1, m->prot);
}

static void return_from_hook(greg_t *g) {
  uint64_t ret;
  memcpy(&ret, (const void *)g[REG_RSP], 8);
  g[REG_RIP] = (greg_t)ret;
  g[REG_RSP] += 8;
}

CKS_FN int cks_breakpoint_trap(int sig, siginfo_t *si, void *ctx) {
  (void)sig;
  if (si->si_code != SI_KERNEL) return 0; /* int3 says SI_KERNEL; kill() and steps do not */
  greg_t *g = ((ucontext_t *)ctx)->uc_mcontext.gregs;
  uint64_t at = (uint64_t)g[REG_RIP] - 1;
  if (r_brk && at == r_brk) {
    if (_r_debug.r_state == RT_CONSISTENT) cks_breakpoints_refresh();
    return_from_hook(g);
    return 1;
  }
  struct bp_module *m;
  uint32_t i;
  if (!find_site(at, &m, &i)) return 0; /* the program's own int3 */
  /* Another thread (or process, for shared text) may have put the byte
   * back between its trap and ours. */
  if (*(volatile unsigned char *)at == INT3 && !restore(m, at, i)) {
    cks_warn_once(&warned_restore, "an instruction under a breakpoint could not be put back: the program stops");
    return 0;
  }
  if (__atomic_exchange_n(&m->hit[i], 1, __ATOMIC_RELAXED) == 0) write_hit(at);
  g[REG_RIP] = (greg_t)at;
  return 1;
}

/* ---- planting (start-up, and inside the linker's hook) ---- */

static int is_self(const struct dl_phdr_info *info) {
  uint64_t here = (uint64_t)(uintptr_t)&cks_breakpoints_start;
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
    uint64_t lo = info->dlpi_addr + ph->p_vaddr;
    if (ph->p_type == PT_LOAD && here >= lo && here - lo < ph->p_memsz) return 1;
  }
  return 0;
}

/* The executable segment holding vaddr, or NULL. */
static const ElfW(Phdr) *exec_segment(const struct dl_phdr_info *info, uint64_t vaddr) {
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
    if (ph->p_type == PT_LOAD && (ph->p_flags & PF_X) && (ph->p_flags & PF_R) && vaddr >= ph->p_vaddr &&
        vaddr - ph->p_vaddr < ph->p_memsz)
      return ph;
  }
  return NULL;
}

static void *map_zeroed(size_t size) {
  void *p = mmap(NULL, (size + PAGE - 1) & ~(PAGE - 1), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
  return p == MAP_FAILED ? NULL : p;
}

/* The int3s planted in an object, as PLANTED_SET records of up to 64 KiB
 * (~40,000 sites each): one write(2) per record. Planting is serialized
 * (the constructor, then the dynamic linker's lock), so one buffer serves. */
static struct {
  unsigned char bytes[1 << 16];
  uint32_t size, count;
  uint64_t last;
} planted_set;

static void planted_flush(void) {
  if (!planted_set.count) return;
  uint32_t size = (planted_set.size + 7) & ~7u;
  memset(planted_set.bytes + planted_set.size, 0, size - planted_set.size);
  uint32_t count = planted_set.count;
  memcpy(planted_set.bytes + CKS_SET_COUNT, &count, 4);
  cks_fill_header(planted_set.bytes, size, CKS_KIND_PLANTED_SET, 0);
  cks_write_raw(planted_set.bytes, size);
  planted_set.count = 0;
}

/* Adds a site; sites come in ascending order. */
static void planted_add(uint64_t at) {
  if (planted_set.count && planted_set.size + CKS_ULEB_MAX + 8 > sizeof planted_set.bytes) planted_flush();
  if (!planted_set.count) {
    memset(planted_set.bytes, 0, CKS_SET_FIXED);
    memcpy(planted_set.bytes + CKS_SET_FIRST, &at, 8);
    planted_set.size = CKS_SET_FIXED;
  } else {
    planted_set.size += cks_put_uleb128(planted_set.bytes + planted_set.size, at - planted_set.last);
  }
  planted_set.last = at;
  ++planted_set.count;
}

/* Whether the object's text is relocated at load time (DT_TEXTREL): its
 * bytes then depend on the load address and cannot be shared. */
static int has_textrel(const struct dl_phdr_info *info) {
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    if (info->dlpi_phdr[i].p_type != PT_DYNAMIC) continue;
    for (const ElfW(Dyn) *d = (const ElfW(Dyn) *)(info->dlpi_addr + info->dlpi_phdr[i].p_vaddr); d->d_tag != DT_NULL; ++d)
      if (d->d_tag == DT_TEXTREL || (d->d_tag == DT_FLAGS && (d->d_un.d_val & DF_TEXTREL))) return 1;
  }
  return 0;
}

/* Plants `plan` in the object: returns the module index + 1, 0 if none. */
static uint32_t plant(const struct dl_phdr_info *info, const char *path, const struct cks_plan *plan,
                      const unsigned char *id, uint32_t id_size) {
  uint32_t slot = nmodules;
  if (slot >= MAX_MODULES) {
    cks_warn_once(&warned_full, "more than 1024 objects: later ones are not planted");
    return 0;
  }
  struct bp_module *m = &modules[slot];
  memset(m, 0, sizeof *m);
  size_t n = (size_t)plan->count;
  m->sites = map_zeroed(n * 8 + 2 * n);
  if (!m->sites) {
    cks_warn_about(path, "no memory for its breakpoint table: not planted");
    return 0;
  }
  m->orig = (unsigned char *)(m->sites + n);
  m->hit = m->orig + n;
  uint32_t count = 0, outside = 0;
  uint64_t prev = 0;
  const ElfW(Phdr) *first_seg = NULL;
  int one_segment = 1;
  const ElfW(Phdr) *seg = NULL;
  for (size_t k = 0; k < n; ++k) {
    uint64_t v = plan->vaddrs[k];
    /* Sites come in ascending order: the segment of the one before, mostly. */
    if (!seg || v < seg->p_vaddr || v - seg->p_vaddr >= seg->p_memsz) seg = exec_segment(info, v);
    uint64_t at = info->dlpi_addr + v;
    if (!seg || (count && at <= prev)) { /* unsorted or outside: the contract says neither */
      ++outside;
      continue;
    }
    if (!first_seg) first_seg = seg;
    one_segment &= seg == first_seg;
    unsigned char byte = *(const unsigned char *)at;
    if (byte == INT3) continue; /* the program's own int3 stays its own */
    m->prot = prot_of(seg->p_flags);
    m->sites[count] = at;
    m->orig[count] = byte;
    prev = at;
    ++count;
  }
  if (outside) cks_warn_about(path, "some planned addresses are in no executable segment (a plan of another build?)");
  if (!count) return 0;
  m->count = count;
  m->lo = m->sites[0];
  m->hi = m->sites[count - 1] + 1;
  /* Sites run by an earlier process of the recording are not planted
   * again: their hit is known (shared_files.c). */
  unsigned char *shared = cks_shared_hits(path, id, id_size, count);
  if (shared) m->hit = shared;
  m->text.fd = -1;
  /* Publish before the first int3 can fire. */
  __atomic_store_n(&nmodules, slot + 1, __ATOMIC_RELEASE);
  /* The recording's shared planted text, mapped over the segment; */
  if (shared && one_segment && !has_textrel(info)) {
    uint64_t lo = (info->dlpi_addr + first_seg->p_vaddr) & ~(PAGE - 1);
    uint64_t hi = (info->dlpi_addr + first_seg->p_vaddr + first_seg->p_memsz + PAGE - 1) & ~(PAGE - 1);
    struct cks_text_sites sites = {m->sites, m->hit, count};
    if (cks_shared_text(path, id, id_size, lo, hi, m->prot, &sites, &m->text)) {
      for (uint32_t k = 0; k < count; ++k)
        if (!__atomic_load_n(&m->hit[k], __ATOMIC_RELAXED)) planted_add(m->sites[k]);
      planted_flush();
      return slot + 1;
    }
  }
  /* or page by page, each span from its first site to its last written at once. */
  static unsigned char span[PAGE];
  static uint64_t fresh[PAGE];
  uint32_t failed = 0;
  for (uint32_t k = 0; k < count;) {
    uint64_t page = m->sites[k] & ~(PAGE - 1);
    uint32_t last = k, nfresh = 0;
    while (last + 1 < count && (m->sites[last + 1] & ~(PAGE - 1)) == page) ++last;
    for (uint32_t j = k; j <= last; ++j)
      if (!__atomic_load_n(&m->hit[j], __ATOMIC_RELAXED)) fresh[nfresh++] = m->sites[j];
    k = last + 1;
    if (!nfresh) continue;
    uint64_t from = fresh[0], to = fresh[nfresh - 1] + 1;
    memcpy(span, (const void *)from, to - from);
    for (uint32_t j = 0; j < nfresh; ++j) span[fresh[j] - from] = INT3;
    if (write_mem(from, span, to - from, m->prot)) {
      for (uint32_t j = 0; j < nfresh; ++j) planted_add(fresh[j]);
    } else {
      failed += nfresh;
    }
  }
  planted_flush();
  if (failed) cks_warn_about(path, "its text could not be written: some breakpoints not planted");
  return slot + 1;
}

static int visit(struct dl_phdr_info *info, size_t size, void *data) {
  (void)size;
  (void)data;
  const char *name = info->dlpi_name;
  char exe[4096];
  if (!name || !*name) {
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0) return 0;
    exe[n] = 0;
    name = exe;
  } else if (name[0] != '/') {
    return 0; /* the vDSO */
  }
  for (uint32_t i = 0; i < nseen; ++i)
    if (seen[i].base == info->dlpi_addr) {
      seen[i].present = 1;
      return 0;
    }
  if (nseen >= MAX_MODULES || is_self(info)) return 0;
  struct seen_object *s = &seen[nseen++];
  s->base = info->dlpi_addr;
  s->present = 1;
  s->module = 0;
  unsigned char id[CKS_MAX_BUILD_ID];
  uint32_t id_size = (uint32_t)cks_build_id(info, id);
  struct cks_plan plan;
  if (!cks_plan_request(&plan_conn, name, id, id_size, &plan)) return 0;
  if (plan.count) s->module = plant(info, name, &plan, id, id_size);
  cks_plan_free(&plan);
  return 0;
}

CKS_FN void cks_breakpoints_refresh(void) {
  for (uint32_t i = 0; i < nseen; ++i) seen[i].present = 0;
  dl_iterate_phdr(visit, NULL);
  if (plan_conn >= 0) {
    close(plan_conn);
    plan_conn = -1;
  }
  /* Gone (dlclose): their range may be reused by the next object. */
  for (uint32_t i = 0; i < nseen;) {
    if (seen[i].present) {
      ++i;
      continue;
    }
    if (seen[i].module) {
      struct bp_module *m = &modules[seen[i].module - 1];
      __atomic_store_n(&m->dead, 1, __ATOMIC_RELAXED);
      cks_shared_text_close(&m->text); /* its mapping went with the object */
    }
    seen[i] = seen[--nseen];
  }
  cks_write_mappings();
}

/* The linker's hook, when it is the bare return this relies on. */
static void follow_linker(void) {
  uint64_t at = (uint64_t)_r_debug.r_brk;
  if (!at) return; /* static */
  static const unsigned char endbr64[] = {0xf3, 0x0f, 0x1e, 0xfa};
  const unsigned char *code = (const unsigned char *)at;
  if (code[0] != 0xc3 && !(memcmp(code, endbr64, 4) == 0 && code[4] == 0xc3)) {
    cks_warn_once(&warned_shape, "the dynamic linker's hook is not a bare return: dlopen'ed objects are not planted");
    return;
  }
  int prot = PROT_READ | PROT_EXEC;
  unsigned char int3 = INT3;
  r_brk = at; /* before the int3: the handler must know it */
  if (!write_mem(at, &int3, 1, prot)) {
    r_brk = 0;
    cks_warn("the dynamic linker's hook cannot be planted: dlopen'ed objects are not planted");
  }
}

CKS_FN int cks_breakpoints_start(void) {
  if (!cks_install_trap_handler(cks_breakpoint_trap)) return 0;
  follow_linker();
  cks_breakpoints_refresh();
  return 1;
}
