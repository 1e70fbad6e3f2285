/* Loaded objects and their executable segments. Readers of the segment set
 * take no lock (an immutable array swapped atomically); changes happen under
 * a spin lock that is never held while calling into the dynamic loader, so a
 * thread inside dlopen (holding the loader lock) can always take it. */
#include "modules.h"

#include <elf.h>
#include <fcntl.h>
#include <link.h>
#include <sched.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "process_meta.h"

#define MAX_MODULES 1024
#define MAX_SEGS 8
#define MAX_BUILD_ID 64

struct module {
  uint64_t base, seen, hash;
  uint32_t nseg, live;
  uint64_t lo[MAX_SEGS], hi[MAX_SEGS];
  uint32_t build_id_len;  /* 0: none */
  uint8_t build_id[MAX_BUILD_ID];
  char path[CKT_PATH_MAX];
};

struct segset {
  uint32_t n;
  uint64_t lo[]; /* lo[0..n), then the matching hi[0..n) */
};

static struct module *modules;  /* MAX_MODULES, mapped at first use */
static uint32_t nmodules;
static struct segset *volatile segs;  /* current executable segments */
static unsigned long long seen_adds, seen_subs;
static int lock_word;
void (*ckt_modules_after_refresh)(void);

/* Executable segments of modules found gone (dlclose), the newest
 * GONE_RING: threads forget the functions they cached there (another
 * module may be mapped at the same addresses). gone_count only grows. */
#define GONE_RING 256
static uint64_t gone_lo[GONE_RING], gone_hi[GONE_RING];
static uint32_t gone_count;

/* Sets of module indices (MAX_MODULES bits). */
CKT_FN static inline void set_bit(uint32_t *bits, uint32_t j) { bits[j / 32] |= 1u << (j % 32); }
CKT_FN static inline int has_bit(const uint32_t *bits, uint32_t j) { return (bits[j / 32] >> (j % 32)) & 1u; }

CKT_FN void ckt_modules_lock(void) {
  while (__atomic_exchange_n(&lock_word, 1, __ATOMIC_ACQUIRE)) sched_yield();
}
CKT_FN void ckt_modules_unlock(void) { __atomic_store_n(&lock_word, 0, __ATOMIC_RELEASE); }

CKT_FN static int contains(uintptr_t a) {
  struct segset *s = __atomic_load_n(&segs, __ATOMIC_ACQUIRE);
  if (!s) return 0;
  for (uint32_t i = 0; i < s->n; i++)
    if (a >= s->lo[i] && a < s->lo[s->n + i]) return 1;
  return 0;
}

/* ---- what dl_iterate_phdr reports, copied out (no lock of ours held) ---- */

struct found {
  uint64_t base;
  uint32_t nseg, path_off;
  uint32_t build_id_len;
  uint8_t build_id[MAX_BUILD_ID];
  uint32_t rel_off;   /* a relative name as the loader has it, in the pool (0: none) */
  uint64_t lo[MAX_SEGS], hi[MAX_SEGS];
};
struct scan {
  struct found *f;
  uint32_t n, cap;
  char *pool;
  size_t pool_used, pool_cap;
  unsigned long long adds, subs;
};

CKT_FN static int counts_cb(struct dl_phdr_info *info, size_t size, void *arg) {
  unsigned long long *c = arg;
  if (size >= offsetof(struct dl_phdr_info, dlpi_subs) + sizeof info->dlpi_subs) {
    c[0] = info->dlpi_adds;
    c[1] = info->dlpi_subs;
  }
  return 1;  /* the first object is enough */
}

/* Whether [lo, lo + len) of the object's addresses is mapped (in a PT_LOAD). */
CKT_FN static int loaded(const struct dl_phdr_info *info, uint64_t lo, uint64_t len) {
  for (int i = 0; i < info->dlpi_phnum; i++) {
    const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
    if (ph->p_type == PT_LOAD && lo >= ph->p_vaddr && lo + len <= ph->p_vaddr + ph->p_memsz && lo + len >= lo)
      return 1;
  }
  return 0;
}

/* The object's NT_GNU_BUILD_ID, read from its notes as mapped: what a
 * reader compares with the file it finds at the module's path (a program
 * rebuilt since the recording would be named with the new one's symbols).
 * Its length; 0 when there is none. */
CKT_FN static uint32_t build_id_of(const struct dl_phdr_info *info, uint8_t *out) {
  for (int i = 0; i < info->dlpi_phnum; i++) {
    const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
    if (ph->p_type != PT_NOTE || !loaded(info, ph->p_vaddr, ph->p_memsz)) continue;
    const uint64_t align = ph->p_align == 8 ? 8 : 4;
    const uint8_t *p = (const uint8_t *)(info->dlpi_addr + ph->p_vaddr), *end = p + ph->p_memsz;
    while (end - p >= 12) {
      uint32_t w[3];  /* namesz, descsz, type */
      memcpy(w, p, sizeof w);
      uint64_t name_len = (w[0] + align - 1) & ~(align - 1), desc_len = (w[1] + align - 1) & ~(align - 1);
      if (name_len > (uint64_t)(end - p) - 12 || desc_len > (uint64_t)(end - p) - 12 - name_len) break;
      const uint8_t *name = p + 12, *desc = name + name_len;
      if (w[2] == NT_GNU_BUILD_ID && w[0] == 4 && memcmp(name, "GNU", 4) == 0 && w[1] > 0 && w[1] <= MAX_BUILD_ID) {
        memcpy(out, desc, w[1]);
        return w[1];
      }
      p = desc + desc_len;
    }
  }
  return 0;
}

/* A line of /proc/self/maps: when its range holds `addr`, its file's path
 * into `out` (1). "lo-hi perms offset dev inode   path". */
CKT_FN static int maps_line_holds(const char *line, uint64_t addr, char *out, size_t cap) {
  uint64_t v[2] = {0, 0};
  for (int k = 0; k < 2; k++) {
    for (; *line && *line != '-' && *line != ' '; line++) {
      char c = *line;
      int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
      if (d < 0) return 0;
      v[k] = v[k] << 4 | (uint64_t)d;
    }
    if (*line) line++;
  }
  if (addr < v[0] || addr >= v[1]) return 0;
  for (int field = 0; field < 4; field++) {  /* perms offset dev inode */
    while (*line == ' ') line++;
    while (*line && *line != ' ') line++;
  }
  while (*line == ' ') line++;
  size_t n = strlen(line);
  if (line[0] != '/' || n >= cap) return 0;
  memcpy(out, line, n + 1);
  return 1;
}

/* The file mapped at `addr`, as /proc/self/maps names it (absolute, as the
 * kernel found it when it was mapped); 0 when none is. */
CKT_FN static int mapped_path(uint64_t addr, char *out, size_t cap) {
  int fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return 0;
  char buf[CKT_PATH_MAX + 512];
  size_t have = 0;
  int found = 0;
  ssize_t r;
  while (!found && (r = read(fd, buf + have, sizeof buf - 1 - have)) > 0) {
    have += (size_t)r;
    char *line = buf, *nl;
    while (!found && (nl = memchr(line, '\n', have - (size_t)(line - buf))) != NULL) {
      *nl = 0;
      found = maps_line_holds(line, addr, out, cap);
      line = nl + 1;
    }
    size_t rest = have - (size_t)(line - buf);
    if (rest == sizeof buf - 1) rest = 0;  /* a line longer than the buffer: not a path we could use */
    memmove(buf, line, rest);
    have = rest;
  }
  close(fd);
  return found;
}

CKT_FN static int scan_cb(struct dl_phdr_info *info, size_t size, void *arg) {
  struct scan *sc = arg;
  if (size >= offsetof(struct dl_phdr_info, dlpi_subs) + sizeof info->dlpi_subs) {
    sc->adds = info->dlpi_adds;
    sc->subs = info->dlpi_subs;
  }
  const char *name = info->dlpi_name ? info->dlpi_name : "";
  int main_program = sc->n == 0 && name[0] == 0;
  if (!main_program && !strchr(name, '/')) return 0;  /* linux-vdso.so.1: no file */
  if (sc->n == sc->cap) return 1;
  struct found *f = &sc->f[sc->n];
  f->base = info->dlpi_addr;
  f->nseg = 0;
  f->build_id_len = build_id_of(info, f->build_id);
  for (int i = 0; i < info->dlpi_phnum && f->nseg < MAX_SEGS; i++) {
    const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
    if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X)) continue;
    f->lo[f->nseg] = info->dlpi_addr + ph->p_vaddr;
    f->hi[f->nseg] = info->dlpi_addr + ph->p_vaddr + ph->p_memsz;
    f->nseg++;
  }
  /* The path: the exe's for the main program; for a relative name (dlopen
   * of "./x.so"), the file the kernel says is mapped there, since the
   * program may have changed directory since it loaded it; else the name
   * made absolute with the directory of now. */
  char cwd[CKT_PATH_MAX];
  const char *prefix = "", *rel = NULL;
  if (main_program) {
    name = ckt_exe;
  } else if (name[0] != '/') {
    rel = name;
    if (f->nseg > 0 && mapped_path(f->lo[0], cwd, sizeof cwd)) {
      name = cwd;
    } else if (getcwd(cwd, sizeof cwd - 1)) {
      size_t c = strlen(cwd);
      cwd[c] = '/';
      cwd[c + 1] = 0;
      prefix = cwd;
    }
  }
  size_t need = strlen(prefix) + strlen(name) + 1, rel_need = rel ? strlen(rel) + 1 : 0;
  if (sc->pool_used + need + rel_need > sc->pool_cap) return 1;
  f->path_off = (uint32_t)sc->pool_used;
  strcpy(sc->pool + sc->pool_used, prefix);
  strcat(sc->pool + sc->pool_used, name);
  sc->pool_used += need;
  f->rel_off = 0;
  if (rel) {
    f->rel_off = (uint32_t)sc->pool_used;
    strcpy(sc->pool + sc->pool_used, rel);
    sc->pool_used += rel_need;
  }
  sc->n++;
  return 0;
}

/* Whether m is the object loaded at `base` whose absolute path hashes to
 * `hash`, or whose name is the relative `rel`: scan_cb made such a name
 * absolute with the working directory of then, which the program may have
 * left since (chdir), so it is matched by its end. */
CKT_FN static int same_module(const struct module *m, uint64_t base, uint64_t hash, const char *rel) {
  if (m->base != base) return 0;
  if (m->hash == hash) return 1;
  if (!rel) return 0;
  size_t n = strlen(rel), k = strnlen(m->path, sizeof m->path);
  return k > n && m->path[k - n - 1] == '/' && strcmp(m->path + k - n, rel) == 0;
}

/* Under the lock: m's executable segments, for the threads to forget. */
CKT_FN static void list_gone(const struct module *m) {
  for (uint32_t i = 0; i < m->nseg; i++) {
    gone_lo[gone_count % GONE_RING] = m->lo[i];
    gone_hi[gone_count % GONE_RING] = m->hi[i];
    __atomic_store_n(&gone_count, gone_count + 1, __ATOMIC_RELEASE);
  }
}

CKT_FN uint64_t ckt_path_hash(const char *s) {
  uint64_t h = 1469598103934665603ull;
  for (; *s; s++) h = (h ^ (uint8_t)*s) * 1099511628211ull;
  return h;
}

CKT_FN static void write_module(const struct module *m) {
  struct ckt_line l;
  ckt_line_init(&l, "module");
  ckt_line_hex(&l, m->base);
  ckt_line_u64(&l, m->seen);
  ckt_line_char(&l, ' ');
  ckt_line_str(&l, m->path);
  ckt_meta_put(&l);
  for (uint32_t i = 0; i < m->nseg; i++) {
    ckt_line_init(&l, "segment");
    ckt_line_hex(&l, m->base);
    ckt_line_hex(&l, m->lo[i]);
    ckt_line_hex(&l, m->hi[i]);
    ckt_meta_put(&l);
  }
  if (m->build_id_len > 0) {
    static const char digits[] = "0123456789abcdef";
    ckt_line_init(&l, "buildid");
    ckt_line_hex(&l, m->base);
    ckt_line_char(&l, ' ');
    for (uint32_t i = 0; i < m->build_id_len; i++) {
      ckt_line_char(&l, digits[m->build_id[i] >> 4]);
      ckt_line_char(&l, digits[m->build_id[i] & 15]);
    }
    ckt_meta_put(&l);
  }
}

#define SCAN_FOUND 512
#define SCAN_POOL (1u << 20)

CKT_FN static void refresh(uint64_t now) {
  size_t bytes = SCAN_FOUND * sizeof(struct found) + SCAN_POOL;
  void *mem = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (mem == MAP_FAILED) return;
  struct scan sc = {.f = mem, .cap = SCAN_FOUND, .pool = (char *)mem + SCAN_FOUND * sizeof(struct found),
                    .pool_cap = SCAN_POOL};
  dl_iterate_phdr(scan_cb, &sc);

  size_t nseg = 0;
  for (uint32_t i = 0; i < sc.n; i++) nseg += sc.f[i].nseg;
  struct segset *ns = mmap(NULL, sizeof *ns + 2 * nseg * sizeof(uint64_t), PROT_READ | PROT_WRITE,
                           MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

  ckt_modules_lock();
  if (!modules) {
    void *m = mmap(NULL, MAX_MODULES * sizeof(struct module), PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    modules = m == MAP_FAILED ? NULL : m;
  }
  uint32_t was_live[MAX_MODULES / 32] = {0};
  for (uint32_t j = 0; j < nmodules; j++) {
    if (modules[j].live) set_bit(was_live, j);
    modules[j].live = 0;
  }
  for (uint32_t i = 0; i < sc.n && modules; i++) {
    const struct found *f = &sc.f[i];
    const char *path = sc.pool + f->path_off;
    uint64_t h = ckt_path_hash(path);
    const char *rel = f->rel_off ? sc.pool + f->rel_off : NULL;
    uint32_t j = 0;
    while (j < nmodules && !same_module(&modules[j], f->base, h, rel)) j++;
    if (j == nmodules) {
      if (nmodules == MAX_MODULES) continue;
      struct module *m = &modules[nmodules];
      m->base = f->base;
      m->seen = now;
      m->hash = h;
      m->nseg = f->nseg;
      memcpy(m->lo, f->lo, sizeof m->lo);
      memcpy(m->hi, f->hi, sizeof m->hi);
      m->build_id_len = f->build_id_len;
      memcpy(m->build_id, f->build_id, f->build_id_len);
      strncpy(m->path, path, sizeof m->path - 1);
      __atomic_store_n(&nmodules, nmodules + 1, __ATOMIC_RELEASE);
      write_module(m);
    } else if (!has_bit(was_live, j)) {
      /* Loaded again after another module held its place: from now on. */
      modules[j].seen = now;
      write_module(&modules[j]);
    }
    modules[j].live = 1;
  }
  for (uint32_t j = 0; j < nmodules; j++)
    if (has_bit(was_live, j) && !modules[j].live) list_gone(&modules[j]);
  if (ns != MAP_FAILED) {
    uint32_t k = 0;
    for (uint32_t i = 0; i < sc.n; i++)
      for (uint32_t s = 0; s < sc.f[i].nseg; s++) ns->lo[k++] = sc.f[i].lo[s];
    for (uint32_t i = 0; i < sc.n; i++)
      for (uint32_t s = 0; s < sc.f[i].nseg; s++) ns->lo[k++] = sc.f[i].hi[s];
    ns->n = (uint32_t)nseg;
    /* The old set is left mapped: another thread may still be reading it. */
    __atomic_store_n(&segs, ns, __ATOMIC_RELEASE);
  }
  seen_adds = sc.adds;
  seen_subs = sc.subs;
  ckt_modules_unlock();
  munmap(mem, bytes);
  void (*after)(void) = ckt_modules_after_refresh;
  if (after) after();
}

CKT_FN void ckt_modules_note(uintptr_t fn, uint64_t now, int may_iterate) {
  if (!may_iterate) return;
  if (contains(fn)) {
    unsigned long long c[2] = {seen_adds, seen_subs};
    dl_iterate_phdr(counts_cb, c);
    if (c[0] == seen_adds && c[1] == seen_subs) return;
  }
  refresh(now);
}

/* ---- after a dlclose: which known modules are gone, allocating nothing
 * (the program's mappings stay as they would be without us, so the next
 * library may be mapped where the closed one was, as it would) ---- */

struct present {
  uint32_t n;  /* modules[0..n) looked at */
  uint32_t bits[MAX_MODULES / 32];
  char path[CKT_PATH_MAX];
};

CKT_FN static int is_object(const struct module *m, const struct dl_phdr_info *info, uint64_t hash) {
  const char *name = info->dlpi_name ? info->dlpi_name : "";
  if (name[0] == 0) return m->base == info->dlpi_addr && m->hash == ckt_path_hash(ckt_exe);  /* the main program */
  return same_module(m, info->dlpi_addr, hash, name[0] == '/' ? NULL : name);
}

CKT_FN static int present_cb(struct dl_phdr_info *info, size_t size, void *arg) {
  (void)size;
  struct present *p = arg;
  const char *name = info->dlpi_name ? info->dlpi_name : "";
  uint64_t hash = 0;  /* of the path as scan_cb makes it (a relative name: the mapped file's) */
  if (name[0] == '/') {
    hash = ckt_path_hash(name);
  } else if (name[0]) {
    for (int i = 0; i < info->dlpi_phnum; i++) {
      const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
      if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X)) continue;
      if (mapped_path(info->dlpi_addr + ph->p_vaddr, p->path, sizeof p->path)) hash = ckt_path_hash(p->path);
      break;
    }
  }
  for (uint32_t j = 0; j < p->n; j++)
    if (is_object(&modules[j], info, hash)) set_bit(p->bits, j);
  return 0;
}

CKT_FN int ckt_modules_note_unloads(void) {
  struct present p;
  memset(p.bits, 0, sizeof p.bits);
  p.n = __atomic_load_n(&nmodules, __ATOMIC_ACQUIRE);  /* entries below it are complete */
  if (!modules || p.n == 0) return 0;
  dl_iterate_phdr(present_cb, &p);
  int gone = 0;
  ckt_modules_lock();
  for (uint32_t j = 0; j < p.n; j++) {
    if (!modules[j].live || has_bit(p.bits, j)) continue;
    modules[j].live = 0;
    list_gone(&modules[j]);
    gone = 1;
  }
  ckt_modules_unlock();
  return gone;
}

CKT_FN uint32_t ckt_modules_gone_count(void) { return __atomic_load_n(&gone_count, __ATOMIC_ACQUIRE); }

CKT_FN int ckt_modules_gone_range(uint32_t i, uint64_t *lo, uint64_t *hi) {
  ckt_modules_lock();
  int kept = i < gone_count && gone_count - i <= GONE_RING;
  if (kept) {
    *lo = gone_lo[i % GONE_RING];
    *hi = gone_hi[i % GONE_RING];
  }
  ckt_modules_unlock();
  return kept;
}

CKT_FN void ckt_modules_write_live(void) {
  for (uint32_t j = 0; j < nmodules; j++)
    if (modules[j].live) write_module(&modules[j]);
}

CKT_FN int ckt_modules_locate(uintptr_t a, uint64_t *base, uint64_t *path_hash, char *path, size_t cap) {
  int found = 0;
  ckt_modules_lock();
  for (uint32_t j = 0; j < nmodules && !found; j++) {
    const struct module *m = &modules[j];
    if (!m->live) continue;
    for (uint32_t i = 0; i < m->nseg; i++)
      if (a >= m->lo[i] && a < m->hi[i]) {
        *base = m->base;
        *path_hash = m->hash;
        if (path && cap) {
          size_t n = strnlen(m->path, cap - 1);
          memcpy(path, m->path, n);
          path[n] = 0;
        }
        found = 1;
        break;
      }
  }
  ckt_modules_unlock();
  return found;
}
