/* libcovkit-blocks: the hooks of -fsanitize-coverage (GCC and clang), a
 * count per basic block, written at exit as a block file (docs/covkit-
 * blocks.md) that `covkit blocks report` turns into line coverage.
 *
 *   trace-pc         __sanitizer_cov_trace_pc: a call per block; counted
 *                    per calling address in a fixed open-addressing table
 *   trace-pc-guard   __sanitizer_cov_trace_pc_guard(_init): each guard gets
 *                    an index into a counter array, the caller's address is
 *                    kept on the guard's first call
 *   inline-8bit-counters / inline-bool-flag with pc-table: no call; the
 *                    compiler's own counters and the table of block
 *                    addresses, registered by the module's constructor,
 *                    are read at exit (every block listed, run or not)
 *
 * Hot paths allocate nothing and take no lock: the tables are mapped once
 * (MAP_NORESERVE), counts are relaxed atomic adds. Nothing is dropped
 * silently: addresses the table had no room for, and guards beyond the
 * array, are counted and written in the file's header. C11, no C++
 * runtime, hidden except the hooks.
 *
 * With COVKIT_BLOCKS_TRACE=SIZE (bytes; k, M, G suffixes) the hooks also
 * record the sequence of blocks executed (what __bb_trace_func recorded):
 * a 32-bit block id per event in a buffer of SIZE bytes reserved at first
 * use, claimed by a relaxed atomic add so threads interleave in claim
 * order; events past the bound are counted (the claims past its end), not
 * kept, and written at exit in the trace file beside the block file
 * (block_contract.h) and in the block file's dropped line. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <link.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "block_contract.h"

#define CKB_EXPORT __attribute__((visibility("default"), no_instrument_function))
#define CKB_HIDDEN __attribute__((no_instrument_function))

#define GUARD_CAP (1u << 22)    /* guards (4M): 64 MiB of counts + addresses, reserved only */
#define PC_SLOTS (1u << 20)     /* distinct trace-pc addresses (1M) */
#define PC_PROBES 64
#define MAX_INLINE 512          /* modules registering inline counters / pc tables */
#define TRACE_MAX_BYTES (1ull << 36) /* --block-trace's bound is at most 64 GiB */

struct ckb_pc_slot {
  uintptr_t pc;
  uint64_t count;
};

struct ckb_inline {
  const uint8_t *start, *end; /* counters (one byte each) */
  int is_bool;
};
struct ckb_table {
  const uintptr_t *start, *end; /* pairs (address, flags) */
};

static uint64_t *ckb_guard_counts;
static uintptr_t *ckb_guard_pcs;
static uint32_t ckb_next_guard = 1;
static uint64_t ckb_guards_dropped;
static struct ckb_pc_slot *ckb_pcs;
static uint64_t ckb_pcs_dropped;
static struct ckb_inline ckb_inlines[MAX_INLINE];
static struct ckb_table ckb_tables[MAX_INLINE];
static int ckb_n_inlines, ckb_n_tables, ckb_inline_dropped;
static int ckb_written;
/* The block trace: ids (a guard's index, or CKB_TRACE_PC_ID | a trace-pc
 * slot), ckb_trace_next claims so far; NULL when not asked for. */
static uint32_t *ckb_trace;
static uint64_t ckb_trace_cap, ckb_trace_next, ckb_trace_lost;

CKB_HIDDEN static void *ckb_map(size_t bytes) {
  void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  return p == MAP_FAILED ? NULL : p;
}

CKB_HIDDEN static void ckb_say(const char *msg) {
  ssize_t ignored = write(2, msg, strlen(msg));
  (void)ignored;
}

/* COVKIT_BLOCKS_TRACE=SIZE: bytes, with an optional k, M or G (1024s);
 * 0 or no value leaves the trace off. */
CKB_HIDDEN static uint64_t ckb_trace_bytes(void) {
  const char *v = getenv(CKB_TRACE_ENV);
  if (!v || !*v) return 0;
  uint64_t n = 0;
  const char *c = v;
  for (; *c >= '0' && *c <= '9'; ++c) {
    if (n > TRACE_MAX_BYTES) break;
    n = n * 10 + (uint64_t)(*c - '0');
  }
  int shift = 0;
  if (*c == 'k' || *c == 'K') shift = 10;
  else if (*c == 'm' || *c == 'M') shift = 20;
  else if (*c == 'g' || *c == 'G') shift = 30;
  if (shift) ++c;
  if (c == v || *c || (n << shift >> shift) != n) {
    ckb_say("covkit-blocks: " CKB_TRACE_ENV " is not a size (bytes, or a number with k, M or G): no block trace\n");
    return 0;
  }
  n <<= shift;
  if (n > TRACE_MAX_BYTES) {
    ckb_say("covkit-blocks: " CKB_TRACE_ENV " above 64G: the trace is bounded at 64G\n");
    n = TRACE_MAX_BYTES;
  }
  return n;
}

/* Mapped on first use: a statically linked runtime may see a module's
 * constructor before its own. */
CKB_HIDDEN static int ckb_ready(void) {
  if (__builtin_expect(ckb_guard_counts != NULL, 1)) return 1;
  uint64_t *counts = ckb_map(sizeof(uint64_t) * GUARD_CAP);
  uintptr_t *pcs = ckb_map(sizeof(uintptr_t) * GUARD_CAP);
  struct ckb_pc_slot *slots = ckb_map(sizeof(struct ckb_pc_slot) * PC_SLOTS);
  if (!counts || !pcs || !slots) return 0;
  uint64_t trace_bytes = ckb_trace_bytes();
  if (trace_bytes >= sizeof(uint32_t)) {
    uint32_t *trace = ckb_map(trace_bytes);
    if (trace) {
      ckb_trace_cap = trace_bytes / sizeof(uint32_t);
      ckb_trace = trace;
    } else {
      ckb_say("covkit-blocks: cannot reserve the block trace's memory: no block trace\n");
    }
  }
  ckb_guard_pcs = pcs;
  ckb_pcs = slots;
  __atomic_store_n(&ckb_guard_counts, counts, __ATOMIC_RELEASE);
  return 1;
}

CKB_EXPORT void __sanitizer_cov_trace_pc_guard_init(uint32_t *start, uint32_t *stop) {
  if (start == stop || *start || !ckb_ready()) return;
  for (uint32_t *g = start; g < stop; ++g) {
    if (ckb_next_guard < GUARD_CAP) {
      *g = ckb_next_guard++;
    } else {
      *g = 0;
      ++ckb_guards_dropped;
    }
  }
}

/* One event of the block trace: a claim past the bound is the count of
 * what was dropped (ckb_trace_next - ckb_trace_cap at exit). */
CKB_HIDDEN static inline void ckb_trace_event(uint32_t id) {
  uint64_t at = __atomic_fetch_add(&ckb_trace_next, 1, __ATOMIC_RELAXED);
  if (at < ckb_trace_cap) __atomic_store_n(&ckb_trace[at], id, __ATOMIC_RELAXED);
}

CKB_EXPORT void __sanitizer_cov_trace_pc_guard(uint32_t *guard) {
  uint32_t i = *guard;
  if (!i) return;
  __atomic_fetch_add(&ckb_guard_counts[i], 1, __ATOMIC_RELAXED);
  /* The call instruction's last byte: inside the block that made it. */
  if (!ckb_guard_pcs[i]) ckb_guard_pcs[i] = (uintptr_t)__builtin_return_address(0) - 1;
  if (ckb_trace) ckb_trace_event(i);
}

CKB_EXPORT void __sanitizer_cov_trace_pc(void) {
  uintptr_t pc = (uintptr_t)__builtin_return_address(0) - 1;
  if (!ckb_ready()) return;
  uint64_t h = (uint64_t)pc * 0x9e3779b97f4a7c15ull;
  uint32_t at = (uint32_t)(h >> 44) & (PC_SLOTS - 1);
  for (int probe = 0; probe < PC_PROBES; ++probe, at = (at + 1) & (PC_SLOTS - 1)) {
    struct ckb_pc_slot *s = &ckb_pcs[at];
    uintptr_t cur = __atomic_load_n(&s->pc, __ATOMIC_ACQUIRE);
    if (cur == 0) {
      uintptr_t expected = 0;
      if (__atomic_compare_exchange_n(&s->pc, &expected, pc, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) cur = pc;
      else cur = expected;
    }
    if (cur == pc) {
      __atomic_fetch_add(&s->count, 1, __ATOMIC_RELAXED);
      if (ckb_trace) ckb_trace_event(CKB_TRACE_PC_ID | at);
      return;
    }
  }
  __atomic_fetch_add(&ckb_pcs_dropped, 1, __ATOMIC_RELAXED);
  /* Its block has no id: the event is not kept, and counted as dropped. */
  if (ckb_trace) __atomic_fetch_add(&ckb_trace_lost, 1, __ATOMIC_RELAXED);
}

CKB_HIDDEN static void ckb_add_inline(const uint8_t *start, const uint8_t *end, int is_bool) {
  if (ckb_n_inlines >= MAX_INLINE) {
    ++ckb_inline_dropped;
    return;
  }
  ckb_inlines[ckb_n_inlines].start = start;
  ckb_inlines[ckb_n_inlines].end = end;
  ckb_inlines[ckb_n_inlines].is_bool = is_bool;
  ++ckb_n_inlines;
}

CKB_EXPORT void __sanitizer_cov_8bit_counters_init(char *start, char *end) {
  ckb_add_inline((const uint8_t *)start, (const uint8_t *)end, 0);
}

CKB_EXPORT void __sanitizer_cov_bool_flag_init(char *start, char *end) {
  ckb_add_inline((const uint8_t *)start, (const uint8_t *)end, 1);
}

CKB_EXPORT void __sanitizer_cov_pcs_init(const uintptr_t *start, const uintptr_t *end) {
  if (ckb_n_tables >= MAX_INLINE) return; /* its counters are then written without addresses: said */
  ckb_tables[ckb_n_tables].start = start;
  ckb_tables[ckb_n_tables].end = end;
  ++ckb_n_tables;
}

/* ---- the file, written at exit ---- */

struct ckb_out {
  int fd, dir; /* the file, and the directory it is made in (walked to: ckb_open_parent) */
  size_t used;
  int failed;
  char name[NAME_MAX + 1], temp[NAME_MAX + 32]; /* the file's name, and the name it is written under */
  char buf[1 << 16];
};

CKB_HIDDEN static void ckb_flush(struct ckb_out *o) {
  size_t done = 0;
  while (done < o->used && !o->failed) {
    ssize_t n = write(o->fd, o->buf + done, o->used - done);
    if (n <= 0) o->failed = 1;
    else done += (size_t)n;
  }
  o->used = 0;
}

CKB_HIDDEN static void ckb_printf(struct ckb_out *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
CKB_HIDDEN static void ckb_printf(struct ckb_out *o, const char *fmt, ...) {
  if (sizeof o->buf - o->used < PATH_MAX + 128) ckb_flush(o);
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(o->buf + o->used, sizeof o->buf - o->used, fmt, ap);
  va_end(ap);
  if (n > 0) o->used += (size_t)n < sizeof o->buf - o->used ? (size_t)n : sizeof o->buf - o->used - 1;
}

struct ckb_module {
  uintptr_t bias, lo, hi; /* its executable segments span [lo, hi) */
  char path[PATH_MAX];
};
#define MAX_MODULES 1024
static struct ckb_module ckb_modules[MAX_MODULES];
static int ckb_n_modules;

CKB_HIDDEN static int ckb_collect(struct dl_phdr_info *info, size_t size, void *data) {
  (void)size;
  (void)data;
  if (ckb_n_modules >= MAX_MODULES) return 1;
  struct ckb_module *m = &ckb_modules[ckb_n_modules];
  m->bias = info->dlpi_addr;
  m->lo = UINTPTR_MAX;
  m->hi = 0;
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr) *p = &info->dlpi_phdr[i];
    if (p->p_type != PT_LOAD || !(p->p_flags & PF_X)) continue;
    uintptr_t lo = info->dlpi_addr + p->p_vaddr, hi = lo + p->p_memsz;
    if (lo < m->lo) m->lo = lo;
    if (hi > m->hi) m->hi = hi;
  }
  if (m->lo >= m->hi) return 0;
  const char *name = info->dlpi_name;
  if (!name || !*name) {
    /* The executable. */
    ssize_t n = readlink("/proc/self/exe", m->path, sizeof m->path - 1);
    if (n <= 0) return 0;
    m->path[n] = 0;
  } else {
    size_t n = strlen(name);
    if (n >= sizeof m->path) return 0;
    memcpy(m->path, name, n + 1);
  }
  /* A name with a line break would break the file's lines. */
  for (char *c = m->path; *c; ++c)
    if (*c == '\n' || *c == '\r') return 0;
  ++ckb_n_modules;
  return 0;
}

CKB_HIDDEN static int ckb_module_of(uintptr_t pc) {
  for (int i = 0; i < ckb_n_modules; ++i)
    if (pc >= ckb_modules[i].lo && pc < ckb_modules[i].hi) return i;
  return -1;
}

/* Every (address, count) the run produced, in order of modules. */
CKB_HIDDEN static void ckb_write_module(struct ckb_out *o, int mod) {
  const struct ckb_module *m = &ckb_modules[mod];
  ckb_printf(o, "module %#lx %s\n", (unsigned long)m->bias, m->path);
  if (ckb_guard_counts)
    for (uint32_t i = 1; i < ckb_next_guard; ++i) {
      uintptr_t pc = ckb_guard_pcs[i];
      if (!pc || !ckb_guard_counts[i]) continue; /* never ran (here: a forked child resets) */
      if (ckb_module_of(pc) != mod) continue;
      ckb_printf(o, "b %lx %llu\n", (unsigned long)(pc - m->bias), (unsigned long long)ckb_guard_counts[i]);
    }
  if (ckb_pcs)
    for (uint32_t i = 0; i < PC_SLOTS; ++i) {
      uintptr_t pc = ckb_pcs[i].pc;
      if (!pc || !ckb_pcs[i].count || ckb_module_of(pc) != mod) continue;
      ckb_printf(o, "b %lx %llu\n", (unsigned long)(pc - m->bias), (unsigned long long)ckb_pcs[i].count);
    }
  for (int k = 0; k < ckb_n_inlines; ++k) {
    const struct ckb_inline *c = &ckb_inlines[k];
    if (k >= ckb_n_tables) continue;
    const struct ckb_table *t = &ckb_tables[k];
    size_t n = (size_t)(c->end - c->start), entries = (size_t)(t->end - t->start) / 2;
    if (n != entries) continue; /* told in the header */
    for (size_t i = 0; i < n; ++i) {
      uintptr_t pc = t->start[2 * i];
      if (ckb_module_of(pc) != mod) continue;
      /* 8-bit counters wrap at 256: "w" says the count is modulo 256. */
      ckb_printf(o, "%c %lx %u\n", c->is_bool ? 'f' : 'w', (unsigned long)(pc - m->bias), (unsigned)c->start[i]);
    }
  }
}

/* The block file's path: $COVKIT_BLOCKS_FILE or covkit-blocks.%p, %p the
 * process id. */
CKB_HIDDEN static void ckb_path(char *path, size_t size) {
  const char *pattern = getenv(CKB_FILE_ENV);
  if (!pattern || !*pattern) pattern = CKB_DEFAULT_FILE;
  size_t w = 0;
  for (const char *c = pattern; *c && w + 24 < size; ++c) {
    if (c[0] == '%' && c[1] == 'p') {
      w += (size_t)snprintf(path + w, size - w, "%d", (int)getpid());
      ++c;
    } else {
      path[w++] = *c;
    }
  }
  path[w] = 0;
}

/* The directory of PATH, reached one component at a time (O_PATH and
 * O_NOFOLLOW), and PATH's last component in `name`: a symbolic link on the
 * way is followed only when root or the program's own user owns it. A
 * program run as root writing into a directory another user may write (a
 * shared build tree) must not follow that user's link to a directory of
 * root's, where the file would replace one of the same name (the kernel's
 * fs.protected_symlinks guards sticky directories only, and may be off).
 * -1 when refused or not found. */
#define CKB_MAX_LINKS 40
static int ckb_refused_link; /* the last walk stopped at another user's link */
CKB_HIDDEN static int ckb_open_parent(const char *path, char *name, size_t name_size) {
  ckb_refused_link = 0;
  char rest[PATH_MAX], joined[PATH_MAX], target[PATH_MAX];
  if (snprintf(rest, sizeof rest, "%s", path) >= (int)sizeof rest || !*rest) return -1;
  int dir = open(rest[0] == '/' ? "/" : ".", O_PATH | O_DIRECTORY | O_CLOEXEC);
  const char *p = rest;
  for (int links = 0; dir >= 0;) {
    while (*p == '/') ++p;
    const char *end = strchr(p, '/');
    const size_t len = end ? (size_t)(end - p) : strlen(p);
    const char *after = end;
    while (after && *after == '/') ++after;
    if (len == 0 || len >= name_size) break; /* PATH ends with a slash: no file name */
    memcpy(name, p, len);
    name[len] = 0;
    if (!after || !*after) return dir;
    p = end;
    if (strcmp(name, ".") == 0) continue;
    int next = openat(dir, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
    struct stat st;
    if (next < 0 || fstat(next, &st) != 0) {
      if (next >= 0) close(next);
      break;
    }
    if (S_ISLNK(st.st_mode)) {
      ssize_t n = readlinkat(next, "", target, sizeof target - 1);
      close(next);
      /* A target that fills the buffer may have been cut: refused. */
      if (n <= 0 || n >= (ssize_t)sizeof target - 1 || ++links > CKB_MAX_LINKS) break;
      if (st.st_uid != 0 && st.st_uid != geteuid()) {
        ckb_refused_link = 1;
        break;
      }
      target[n] = 0;
      if (snprintf(joined, sizeof joined, "%s%s", target, end) >= (int)sizeof joined) break;
      memcpy(rest, joined, strlen(joined) + 1);
      p = rest;
      if (target[0] == '/') {
        close(dir);
        dir = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
      }
      continue;
    }
    close(dir);
    dir = next;
    if (!S_ISDIR(st.st_mode)) break;
  }
  if (dir >= 0) close(dir);
  return -1;
}

/* The file is written under a new name beside it (created O_EXCL, a random
 * suffix) and renamed onto PATH once whole, both in the directory walked to
 * (ckb_open_parent). A program run as root in a directory another user may
 * write (a build tree, /tmp) must neither hang on a FIFO planted at PATH
 * (an open for writing blocks until a reader comes), nor write through a
 * link or into a file that user created and keeps; the rename replaces
 * whatever entry PATH was without opening it. */
CKB_HIDDEN static int ckb_open(struct ckb_out *o, const char *path, const char *what) {
  o->used = 0;
  o->failed = 0;
  o->fd = -1;
  o->dir = ckb_open_parent(path, o->name, sizeof o->name);
  for (int attempt = 0; o->dir >= 0 && attempt < 16 && o->fd < 0; ++attempt) {
    unsigned long long r = 0;
    if (getrandom(&r, sizeof r, GRND_NONBLOCK) != (ssize_t)sizeof r)
      r ^= ((unsigned long long)getpid() << 32) ^ (unsigned long long)(uintptr_t)&r ^ (unsigned long long)attempt * 0x9e3779b97f4a7c15ull;
    if (snprintf(o->temp, sizeof o->temp, "%s.%016llx.tmp", o->name, r) >= (int)sizeof o->temp) break;
    o->fd = openat(o->dir, o->temp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0644);
    if (o->fd < 0 && errno != EEXIST) break;
  }
  if (o->fd >= 0) return 1;
  if (o->dir >= 0) close(o->dir);
  ckb_say("covkit-blocks: cannot write the ");
  ckb_say(what);
  ckb_say(o->dir < 0 ? (ckb_refused_link ? " (another user's symbolic link on its way)\n"
                                          : " (a directory on its way is missing or cannot be entered)\n")
                    : " (no file can be made in its directory)\n");
  return 0;
}

CKB_HIDDEN static void ckb_close(struct ckb_out *o, const char *what) {
  ckb_flush(o);
  if (close(o->fd) != 0) o->failed = 1;
  if (!o->failed && renameat(o->dir, o->temp, o->dir, o->name) != 0) {
    ckb_say("covkit-blocks: cannot write the ");
    ckb_say(what);
    ckb_say(" (its name is taken by a directory?)\n");
    unlinkat(o->dir, o->temp, 0);
    close(o->dir);
    return;
  }
  if (o->failed) {
    unlinkat(o->dir, o->temp, 0);
    ckb_say("covkit-blocks: the ");
    ckb_say(what);
    ckb_say(" could not be written whole (disk full?)\n");
  }
  close(o->dir);
}

#if __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "the block trace's ids are written little-endian: this runtime is for little-endian machines"
#endif

/* The trace file (block_contract.h): the header, each module's block ids,
 * then the ids as they were claimed. */
CKB_HIDDEN static void ckb_write_trace(struct ckb_out *o, uint64_t claimed) {
  uint64_t kept = claimed < ckb_trace_cap ? claimed : ckb_trace_cap;
  ckb_printf(o, "%s\n", CKB_TRACE_MAGIC);
  ckb_printf(o, "pid %d\n", (int)getpid());
  ckb_printf(o, "bound %llu\n", (unsigned long long)ckb_trace_cap);
  ckb_printf(o, "dropped %llu %llu\n", (unsigned long long)(claimed - kept),
             (unsigned long long)__atomic_load_n(&ckb_trace_lost, __ATOMIC_RELAXED));
  for (int mod = 0; mod < ckb_n_modules; ++mod) {
    const struct ckb_module *m = &ckb_modules[mod];
    ckb_printf(o, "module %#lx %s\n", (unsigned long)m->bias, m->path);
    for (uint32_t i = 1; i < ckb_next_guard; ++i) {
      uintptr_t pc = ckb_guard_pcs[i];
      if (pc && ckb_module_of(pc) == mod) ckb_printf(o, "i %x %lx\n", i, (unsigned long)(pc - m->bias));
    }
    for (uint32_t i = 0; i < PC_SLOTS; ++i) {
      uintptr_t pc = __atomic_load_n(&ckb_pcs[i].pc, __ATOMIC_ACQUIRE);
      if (pc && ckb_module_of(pc) == mod)
        ckb_printf(o, "i %x %lx\n", CKB_TRACE_PC_ID | i, (unsigned long)(pc - m->bias));
    }
  }
  ckb_printf(o, "events %llu\n", (unsigned long long)kept);
  ckb_flush(o);
  const char *bytes = (const char *)ckb_trace;
  uint64_t left = kept * sizeof(uint32_t);
  while (left && !o->failed) {
    ssize_t n = write(o->fd, bytes, left > (1u << 30) ? (1u << 30) : (size_t)left);
    if (n <= 0) o->failed = 1;
    else bytes += n, left -= (uint64_t)n;
  }
  ckb_printf(o, "end\n");
}

/* Blocks that ran in a module gone by exit (dlclose'd): their addresses
 * belong to no module now, so they cannot be written; counted instead. */
CKB_HIDDEN static uint64_t ckb_unmapped(void) {
  uint64_t n = 0;
  if (ckb_guard_counts)
    for (uint32_t i = 1; i < ckb_next_guard; ++i)
      n += ckb_guard_pcs[i] && ckb_guard_counts[i] && ckb_module_of(ckb_guard_pcs[i]) < 0;
  if (ckb_pcs)
    for (uint32_t i = 0; i < PC_SLOTS; ++i)
      n += ckb_pcs[i].pc && ckb_pcs[i].count && ckb_module_of(ckb_pcs[i].pc) < 0;
  return n;
}

CKB_HIDDEN static void ckb_write(void) {
  if (ckb_written) return;
  ckb_written = 1;
  /* Claims after this are not in the trace: the program is exiting. */
  uint64_t claimed = __atomic_load_n(&ckb_trace_next, __ATOMIC_RELAXED);
  uint64_t trace_dropped = 0;
  if (ckb_trace)
    trace_dropped = (claimed > ckb_trace_cap ? claimed - ckb_trace_cap : 0) +
                    __atomic_load_n(&ckb_trace_lost, __ATOMIC_RELAXED);
  char path[PATH_MAX];
  ckb_path(path, sizeof path - sizeof CKB_TRACE_SUFFIX);
  static struct ckb_out out;
  if (!ckb_open(&out, path, "block file")) return;
  ckb_n_modules = 0;
  dl_iterate_phdr(ckb_collect, NULL);
  int mismatched = 0;
  for (int k = 0; k < ckb_n_inlines && k < ckb_n_tables; ++k)
    mismatched += (size_t)(ckb_inlines[k].end - ckb_inlines[k].start) !=
                  (size_t)(ckb_tables[k].end - ckb_tables[k].start) / 2;
  int without_table = ckb_n_inlines > ckb_n_tables ? ckb_n_inlines - ckb_n_tables : 0;
  ckb_printf(&out, "%s\n", CKB_MAGIC);
  ckb_printf(&out, "pid %d\n", (int)getpid());
  ckb_printf(&out, "dropped %llu %llu %d %d %llu %llu\n", (unsigned long long)ckb_pcs_dropped,
             (unsigned long long)ckb_guards_dropped, ckb_inline_dropped + without_table, mismatched,
             (unsigned long long)trace_dropped, (unsigned long long)ckb_unmapped());
  for (int i = 0; i < ckb_n_modules; ++i) ckb_write_module(&out, i);
  ckb_printf(&out, "end\n");
  ckb_close(&out, "block file");
  if (!ckb_trace) return;
  strcat(path, CKB_TRACE_SUFFIX);
  if (!ckb_open(&out, path, "block trace")) return;
  ckb_write_trace(&out, claimed);
  ckb_close(&out, "block trace");
}

/* A forked child starts from zero, as GCC's fork wrapper resets libgcov's
 * counters in the child: its block file (its own pid) then holds what the
 * child ran, and the parent's and the child's files add up to what ran,
 * the blocks before the fork counted once. Addresses stay known; blocks
 * whose count is now zero are not written (as in a process where they never
 * ran). The compiler's inline counters are the module's memory: zeroed
 * too. Only the child runs this, single-threaded. */
CKB_HIDDEN static void ckb_after_fork_in_child(void) {
  if (ckb_guard_counts) memset(ckb_guard_counts, 0, sizeof(uint64_t) * ckb_next_guard);
  if (ckb_pcs)
    for (uint32_t i = 0; i < PC_SLOTS; ++i)
      if (ckb_pcs[i].pc) ckb_pcs[i].count = 0;
  ckb_pcs_dropped = 0;
  for (int k = 0; k < ckb_n_inlines; ++k)
    memset((void *)ckb_inlines[k].start, 0, (size_t)(ckb_inlines[k].end - ckb_inlines[k].start));
  ckb_trace_next = 0;
  ckb_trace_lost = 0;
  ckb_written = 0;
}

__attribute__((constructor, no_instrument_function)) static void ckb_at_start(void) {
  pthread_atfork(NULL, NULL, ckb_after_fork_in_child);
}

__attribute__((destructor, no_instrument_function)) static void ckb_at_exit(void) { ckb_write(); }
