/* The stub region, the slots and their `plt` lines (plt_stubs.h). Cold
 * paths only: stubs are made when modules are hooked. */
#include "plt_stubs.h"

#include <sched.h>
#include <string.h>
#include <sys/mman.h>

#include "process_meta.h"
#include "text_line.h"

struct ckt_plt_slot *ckt_plt_slots;
uintptr_t ckt_plt_lo, ckt_plt_hi;

enum { NAME_POOL = 8 << 20 };
static char *names;
static size_t names_used;
static uint32_t nslots, nwritten;
static int meta_is_open;
static int lock_word;

CKT_FN void ckt_plt_lock(void) {
  while (__atomic_exchange_n(&lock_word, 1, __ATOMIC_ACQUIRE)) sched_yield();
}
CKT_FN void ckt_plt_unlock(void) { __atomic_store_n(&lock_word, 0, __ATOMIC_RELEASE); }

CKT_FN static void put_u32le(uint8_t *p, uint32_t v) {
  for (int i = 0; i < 4; i++) p[i] = (uint8_t)(v >> (8 * i));
}

CKT_FN int ckt_plt_stubs_init(uintptr_t entry) {
  if (ckt_plt_hi) return 1;
  const size_t code = (size_t)CKT_PLT_STUB * (CKT_PLT_MAX + 1);
  uint8_t *c = mmap(NULL, code, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (c == MAP_FAILED) return 0;
  void *t = mmap(NULL, (size_t)CKT_PLT_MAX * sizeof *ckt_plt_slots, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  void *n = mmap(NULL, NAME_POOL, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (t == MAP_FAILED || n == MAP_FAILED) {
    munmap(c, code);
    if (t != MAP_FAILED) munmap(t, (size_t)CKT_PLT_MAX * sizeof *ckt_plt_slots);
    if (n != MAP_FAILED) munmap(n, NAME_POOL);
    return 0;
  }
  /* The common tail at the start: jmp *0(%rip), then the entry's address. */
  c[0] = 0xff, c[1] = 0x25;
  put_u32le(c + 2, 0);
  memcpy(c + 6, &entry, sizeof entry);
  for (uint32_t i = 0; i < CKT_PLT_MAX; i++) {
    uint8_t *s = c + CKT_PLT_STUB * (i + 1);
    s[0] = 0xf3, s[1] = 0x0f, s[2] = 0x1e, s[3] = 0xfa; /* endbr64 (a jump through a GOT lands here) */
    s[4] = 0x41, s[5] = 0xbb;                           /* mov $i, %r11d */
    put_u32le(s + 6, i);
    s[10] = 0xe9; /* jmp rel32 to the tail */
    put_u32le(s + 11, (uint32_t)(int32_t)(0 - (intptr_t)(CKT_PLT_STUB * (i + 1) + 15)));
    s[15] = 0x90;
  }
  if (mprotect(c, code, PROT_READ | PROT_EXEC) != 0) {
    munmap(c, code);
    munmap(t, (size_t)CKT_PLT_MAX * sizeof *ckt_plt_slots);
    munmap(n, NAME_POOL);
    return 0;
  }
  ckt_plt_slots = t;
  names = n;
  ckt_plt_lo = (uintptr_t)c;
  __atomic_store_n(&ckt_plt_hi, (uintptr_t)c + code, __ATOMIC_RELEASE);
  return 1;
}

/* "plt <stub> <target> <name>" */
CKT_FN static void write_line(uint32_t i) {
  struct ckt_line l;
  ckt_line_init(&l, "plt");
  ckt_line_hex(&l, ckt_plt_stub_address(i));
  ckt_line_hex(&l, ckt_plt_slots[i].target);
  ckt_line_char(&l, ' ');
  ckt_line_str(&l, ckt_plt_slots[i].name);
  ckt_meta_put(&l);
}

CKT_FN uint32_t ckt_plt_stub_new(uintptr_t target, const char *name, size_t len) {
  if (!ckt_plt_hi || len == 0 || len >= CKT_PLT_NAME_MAX) return CKT_PLT_NONE;
  ckt_plt_lock();
  uint32_t i = CKT_PLT_NONE;
  if (nslots < CKT_PLT_MAX && names_used + len + 1 <= NAME_POOL) {
    i = nslots;
    char *copy = names + names_used;
    memcpy(copy, name, len);
    copy[len] = 0;
    names_used += len + 1;
    ckt_plt_slots[i].target = target;
    ckt_plt_slots[i].name = copy;
    nslots++;
    if (meta_is_open) {
      write_line(i);
      nwritten = nslots;
    }
  }
  ckt_plt_unlock();
  return i;
}

CKT_FN void ckt_plt_meta_open(void) {
  ckt_plt_lock();
  meta_is_open = 1;
  for (; nwritten < nslots; nwritten++) write_line(nwritten);
  ckt_plt_unlock();
}

CKT_FN void ckt_plt_meta_rewrite(void) {
  ckt_plt_lock();
  meta_is_open = 1;
  for (nwritten = 0; nwritten < nslots; nwritten++) write_line(nwritten);
  ckt_plt_unlock();
}
