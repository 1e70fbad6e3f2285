/* Branch vectors from branch to branch. Single-stepping costs a trap per
 * instruction (~10-16 us each on this VM). But from an instruction the
 * thread stands at, the straight line up to the next control transfer is
 * known by decoding (Zydis): those instructions run one after the other,
 * so their addresses are recorded at once and a hardware execute
 * breakpoint (perf_event_open, PERF_TYPE_BREAKPOINT with sigtrap: the
 * thread's own debug register) stops the thread where its state is needed.
 * There a conditional branch is evaluated from the flags, a return from
 * the stack, a direct jump or call needs nothing, rep movs/stos its count
 * (rcx); the run goes on from the target. Anything else (indirect branches,
 * rep cmps/scas, loop and jrcxz, instructions that move the stack pointer
 * in ways not followed here, whatever did not decode) is single-stepped as
 * before. The steps
 * recorded are exactly those single-stepping records.
 *
 * A breakpoint hit counts only with the stack pointer expected there (the
 * pushes, pops, calls and immediate adjustments on the way are followed):
 * a signal handler of the program that runs the same address meanwhile is
 * on another frame, and is skipped as single-stepping skips it.
 *
 * Zydis is loaded with dlopen in branch mode only (the project's start-up
 * rule); without it, or without the breakpoint (perf_event_paranoid, a
 * kernel without sigtrap), every vector single-steps. */
#include <dlfcn.h>
#include <errno.h>
#include <linux/hw_breakpoint.h>
#include <asm/prctl.h>
#include <linux/perf_event.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include <Zydis/Zydis.h>

#include "sample_runtime.h"
#include "step_decode.h"

#ifndef COVKIT_ZYDIS_SONAME
#define COVKIT_ZYDIS_SONAME "libZydis.so.4.0"
#endif

#define TF_BIT 0x100
#define RF_BIT 0x10000 /* the next instruction runs without its breakpoint firing */
#define EFL_CF 0x1
#define EFL_PF 0x4
#define EFL_ZF 0x40
#define EFL_SF 0x80
#define EFL_OF 0x800

typedef ZyanStatus (*zydis_init_fn)(ZydisDecoder *, ZydisMachineMode, ZydisStackWidth);
typedef ZyanStatus (*zydis_decode_fn)(const ZydisDecoder *, const void *, ZyanUSize, ZydisDecodedInstruction *,
                                      ZydisDecodedOperand *);
static zydis_decode_fn decode_full;
static ZydisDecoder decoder;
static int warned_no_breakpoint;

CKS_FN uint32_t cks_instruction_length(uint64_t at) {
  if (!decode_full) return 0;
  ZydisDecodedInstruction in;
  ZydisDecodedOperand ops[ZYDIS_MAX_OPERAND_COUNT];
  return ZYAN_SUCCESS(decode_full(&decoder, (const void *)(uintptr_t)at, 15, &in, ops)) &&
                 !cks_vendor_dependent_branch(&in)
             ? in.length
             : 0;
}

/* Loaded for single-stepping too: the lengths tell taken branches apart. */
CKS_FN void cks_block_step_init(void) {
  void *lib = dlopen(COVKIT_ZYDIS_SONAME, RTLD_NOW | RTLD_LOCAL);
  zydis_init_fn init = lib ? (zydis_init_fn)dlsym(lib, "ZydisDecoderInit") : NULL;
  zydis_decode_fn full = lib ? (zydis_decode_fn)dlsym(lib, "ZydisDecoderDecodeFull") : NULL;
  if (!init || !full || !ZYAN_SUCCESS(init(&decoder, ZYDIS_MACHINE_MODE_LONG_64, ZYDIS_STACK_WIDTH_64))) {
    cks_warn("cannot load " COVKIT_ZYDIS_SONAME ": branch vectors are single-stepped instruction by instruction, "
             "and a step 1 to 15 bytes forward is taken for the next instruction");
    return;
  }
  decode_full = full;
}

/* ---- the hardware breakpoint ---- */

static void breakpoint_attr(struct perf_event_attr *a, uint64_t addr, int disabled) {
  memset(a, 0, sizeof *a);
  a->type = PERF_TYPE_BREAKPOINT;
  a->size = sizeof *a;
  a->bp_type = HW_BREAKPOINT_X;
  a->bp_addr = addr;
  a->bp_len = sizeof(long);
  a->sample_period = 1;
  a->disabled = disabled ? 1 : 0;
  a->exclude_kernel = 1;
  a->exclude_hv = 1;
  a->sigtrap = 1;         /* a synchronous SIGTRAP, si_code TRAP_PERF */
  a->remove_on_exec = 1;  /* required with sigtrap; the new image has its own runtime */
}

/* A period above 1 makes the breakpoint trap at that hit only, counting
 * from zero (a counted loop): PERF_EVENT_IOC_PERIOD clears what is left of
 * the last period (so it is set again even when equal), and the kernel
 * starts the new one when the event is next added, which the modification
 * does. The kernel accepts a modification only when every attribute but
 * the address, type, length and disabled bit equals the event's: the
 * period too. */
static int set_breakpoint(struct cks_thread *t, uint32_t slot, uint64_t addr, int enabled, uint64_t period) {
  int saved = errno, ok = 1;
  if (enabled && (t->bp_period[slot] != period || period > 1)) {
    ok = ioctl(t->bp_fd[slot], PERF_EVENT_IOC_PERIOD, &period) == 0;
    t->bp_moves++;
    if (ok) t->bp_period[slot] = period;
  }
  if (ok && enabled && period > 1) {
    ok = ioctl(t->bp_fd[slot], PERF_EVENT_IOC_RESET, 0) == 0;
    t->bp_moves++;
  }
  if (ok) {
    struct perf_event_attr a;
    breakpoint_attr(&a, addr, !enabled);
    a.sample_period = t->bp_period[slot];
    ok = ioctl(t->bp_fd[slot], PERF_EVENT_IOC_MODIFY_ATTRIBUTES, &a) == 0;
    t->bp_moves++;
  }
  errno = saved;
  if (ok) t->bp_at[slot] = enabled ? addr : 0;
  return ok;
}

static void close_breakpoints(struct cks_thread *t) {
  for (uint32_t i = 0; i < t->bp_slots; i++) close(t->bp_fd[i]);
  t->bp_slots = 0;
}

static void give_up_breakpoint(struct cks_thread *t, const char *what) {
  if (t->bp_state == 1 && t->bp_tid == t->tid) close_breakpoints(t);
  t->bp_state = -1;
  t->bp_slots = 0;
  t->waiting_bp = 0;
  cks_warn_once(&warned_no_breakpoint, what);
}

/* Opens the thread's breakpoints, disabled: as many as asked for and the
 * kernel gives (other debuggers may hold some), at least one. */
static int breakpoint_ready(struct cks_thread *t) {
  if (!decode_full || !cks_cfg.block_step) return 0;
  if (t->bp_state == 1 && t->bp_tid == t->tid) return 1;
  if (t->bp_state == -1) return 0;
  struct perf_event_attr a;
  breakpoint_attr(&a, (uint64_t)(uintptr_t)&cks_block_step, 1);
  t->bp_slots = 0;
  int saved = errno;
  while (t->bp_slots < cks_cfg.block_step) {
    long fd = syscall(SYS_perf_event_open, &a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
    if (fd < 0) break;
    t->bp_fd[t->bp_slots] = (int)fd;
    t->bp_at[t->bp_slots] = 0;
    t->bp_period[t->bp_slots] = 1;
    t->bp_slots++;
  }
  errno = saved;
  if (!t->bp_slots) {
    give_up_breakpoint(t, "no hardware breakpoint for this thread (perf_event_open refused one): branch vectors "
                          "are single-stepped instruction by instruction");
    return 0;
  }
  t->bp_state = 1;
  t->bp_tid = t->tid;
  return 1;
}

static int on_way(const uint64_t *way, uint32_t nway, uint64_t addr) {
  for (uint32_t i = 0; i < nway; i++)
    if (way[i] == addr) return 1;
  return 0;
}

/* The breakpoints where t->expect says, moving only those whose address
 * changes (in a loop the same places come back). A breakpoint no stop
 * needs is left where it is (a move costs a system call) unless the way
 * to the stops passes it: elsewhere the thread cannot come before it
 * reaches a stop, since every way off the decoded one is a stop. */
static int arm_breakpoints(struct cks_thread *t, const uint64_t *way, uint32_t nway) {
  uint32_t used = 0, placed = 0;
  /* a counted breakpoint is always set again: its count starts at zero */
  for (uint32_t i = 0; i < t->nexpect; i++)
    for (uint32_t s = 0; s < t->bp_slots; s++)
      if (t->bp_at[s] == t->expect[i].addr && t->expect[i].period == 1 && t->bp_period[s] == 1 &&
          !(used & (1u << s))) {
        used |= 1u << s;
        placed |= 1u << i;
      }
  for (uint32_t i = 0; i < t->nexpect; i++) {
    if (placed & (1u << i)) continue;
    uint32_t s = 0;
    while (used & (1u << s)) s++;
    if (!set_breakpoint(t, s, t->expect[i].addr, 1, t->expect[i].period)) return 0;
    if (t->expect[i].loop == CKS_LOOP_FULL) t->loop_slot = s;
    used |= 1u << s;
  }
  for (uint32_t s = 0; s < t->bp_slots; s++)
    if (!(used & (1u << s)) && t->bp_at[s] && on_way(way, nway, t->bp_at[s]) &&
        !set_breakpoint(t, s, t->bp_at[s], 0, t->bp_period[s]))
      return 0;
  return 1;
}

CKS_FN void cks_block_step_done(struct cks_thread *t) {
  t->waiting_bp = 0;
  if (t->bp_state != 1 || t->bp_tid != t->tid) return;
  for (uint32_t s = 0; s < t->bp_slots; s++)
    if (t->bp_at[s] && !set_breakpoint(t, s, t->bp_at[s], 0, t->bp_period[s])) {
      give_up_breakpoint(t, "the hardware breakpoint could not be disabled: branch vectors are single-stepped");
      return;
    }
}

CKS_FN void cks_block_step_forked(struct cks_thread *t) {
  if (t->bp_state == 1) close_breakpoints(t); /* this process's copies; the parent's thread keeps its events */
  t->bp_state = 0;
  t->bp_slots = 0;
  t->waiting_bp = 0;
}

CKS_FN void cks_block_step_end(struct cks_thread *t) {
  if (t->bp_state == 1 && t->bp_tid == t->tid) close_breakpoints(t);
  t->bp_state = 0;
}

/* ---- what an instruction does to the way ahead ---- */

/* The common integer forms decode without Zydis (quick_decode.c): the
 * handler meets Zydis's tables cold at each trap, ~0.6 us a decoding, and
 * a vector decodes ~30 instructions first met. */
static void classify_bytes(struct cks_thread *t, uint64_t at, const void *bytes, size_t size,
                           struct cks_step_insn *out, struct cks_emu_insn *emu) {
  if (cks_quick_decode(bytes, size, at, out, emu)) return;
  ZydisDecodedInstruction in;
  ZydisDecodedOperand ops[ZYDIS_MAX_OPERAND_COUNT];
  t->zydis_decodes++;
  if (!ZYAN_SUCCESS(decode_full(&decoder, bytes, size, &in, ops))) {
    cks_step_clear(out, emu);
    return;
  }
  cks_step_from_zydis(&in, ops, at, out, emu);
}

/* ---- where a return goes, known before it runs ---- */

/* The stack memory the way writes, in order: the return addresses its
 * calls push, and whatever else is written relative to the stack pointer.
 * A return whose slot a call on the way pushed goes to that call's next
 * instruction; one whose slot lies at or above the stack pointer where the
 * thread stands, and that nothing on the way wrote, goes where the stack
 * says now. (Only code that writes a return slot through another register
 * could fool this; the breakpoint that follows checks the stack pointer,
 * and a vector whose thread never reaches it is dropped at the next tick.)
 * Anything else stops the thread at the return, as before. */
#define WAY_WRITES 16
struct way_stack {
  uint64_t rsp_now; /* the thread's stack pointer where it stands */
  struct cks_emu *emu; /* the interpreter ran the way up to its start: memory as it left it */
  uint32_t n;
  int unknown; /* a write the list cannot hold: no return is known */
  struct way_write {
    uint64_t lo, hi, ret;
    int call;
  } w[WAY_WRITES];
};

static void way_wrote(struct way_stack *ws, uint64_t lo, uint64_t hi, int call, uint64_t ret) {
  if (ws->n == WAY_WRITES) {
    ws->unknown = 1;
    return;
  }
  struct way_write *w = &ws->w[ws->n++];
  w->lo = lo;
  w->hi = hi;
  w->call = call;
  w->ret = ret;
}

/* What the instruction at `rsp` (before it) writes on the stack. */
static void way_step(struct way_stack *ws, const struct cks_step_insn *s, uint64_t at, uint64_t rsp) {
  if (s->kind == CKS_STEP_JUMP && s->rsp_delta == -8)
    way_wrote(ws, rsp - 8, rsp, 1, at + s->length);
  else if (s->stack_write == 2)
    ws->unknown = 1;
  else if (s->stack_write == 1)
    way_wrote(ws, rsp + (uint64_t)s->write_disp, rsp + (uint64_t)s->write_disp + s->write_size, 0, 0);
}

static int read_stack(const struct cks_thread *t, uint64_t at, uint64_t *value) {
  if (at >= t->stack_lo && at + 8 <= t->stack_hi && at + 8 > at) {
    memcpy(value, (const void *)(uintptr_t)at, 8);
    return 1;
  }
  struct iovec local = {value, 8}, remote = {(void *)(uintptr_t)at, 8};
  int saved = errno;
  ssize_t n = process_vm_readv(t->pid, &local, 1, &remote, 1, 0);
  errno = saved;
  return n == 8;
}

/* A return slot after the interpreter's way: what its stores put there,
 * else (at or above where the thread stands: no signal handler writes
 * there meanwhile) what memory holds now. */
static int emulated_slot(const struct way_stack *ws, uint64_t rsp, uint64_t *target) {
  unsigned covered = 0;
  for (uint32_t i = 0; i < ws->emu->nstores; i++) {
    const struct cks_emu_store *st = &ws->emu->stores[i];
    for (uint32_t k = 0; k < st->size; k++)
      if (st->addr + k - rsp < 8) covered |= 1u << (st->addr + k - rsp);
  }
  if (covered != 0xff && rsp < ws->rsp_now) return 0;
  return cks_emu_load(ws->emu, rsp, 8, target);
}

/* The target of the return at a stack pointer of `rsp`; 0: not known. */
static int way_return(const struct cks_thread *t, const struct way_stack *ws, uint64_t rsp, uint64_t *target) {
  if (ws->unknown) return 0;
  for (uint32_t i = ws->n; i-- > 0;) {
    const struct way_write *w = &ws->w[i];
    if (w->lo < rsp + 8 && rsp < w->hi) {
      if (!w->call || w->lo != rsp) return 0;
      *target = w->ret;
      return 1;
    }
  }
  if (ws->emu) return emulated_slot(ws, rsp, target);
  return rsp >= ws->rsp_now && read_stack(t, rsp, target);
}

/* Decoding costs ~0.1-0.2 us an instruction here, and the same code comes
 * back trap after trap: what was decoded is kept in a table the address
 * indexes, and used again while the instruction's bytes are the same. An
 * entry depends on its bytes alone (targets and rip-relative operands are
 * kept relative), so the same bytes decode the same at any address. */
/* The first n (1-15) bytes equal, reading only those: two overlapping
 * words (a call of memcmp cost as much as the rest of a cached lookup). */
static int same_bytes(const unsigned char *a, const unsigned char *b, uint32_t n) {
  if (n >= 8) {
    uint64_t x, y, u, v;
    memcpy(&x, a, 8), memcpy(&y, b, 8), memcpy(&u, a + n - 8, 8), memcpy(&v, b + n - 8, 8);
    return x == y && u == v;
  }
  if (n >= 4) {
    uint32_t x, y, u, v;
    memcpy(&x, a, 4), memcpy(&y, b, 4), memcpy(&u, a + n - 4, 4), memcpy(&v, b + n - 4, 4);
    return x == y && u == v;
  }
  for (uint32_t i = 0; i < n; i++)
    if (a[i] != b[i]) return 0;
  return 1;
}

static int decoded_is(const struct cks_decoded *c, const unsigned char *bytes, size_t comparable) {
  return c->emu.length && c->emu.length <= comparable && same_bytes(c->bytes, bytes, c->emu.length);
}

/* The index set (two entries) of the instruction at `at`: by the
 * address's halves, neighbours in neighbouring sets, regions 16 KiB apart
 * spread by the high bits. */
#define DECODED_ENTRIES (sizeof ((struct cks_thread *)0)->decoded / sizeof ((struct cks_thread *)0)->decoded[0])
static uint16_t *decoded_set(struct cks_thread *t, uint64_t at) {
  return t->decoded_index[((at >> 1) + (at >> 13) * 0x9e5) & (CKS_DECODED_SETS - 1)];
}

static const struct cks_emu_insn *classify_cached(struct cks_thread *t, uint64_t at, const unsigned char *bytes,
                                                  size_t size, size_t comparable, struct cks_step_insn *out) {
  /* two ways a set: the interpreter decodes every instruction of hot code
   * (bzip2's mainSort and mainGtU hold ~1,000), which one way per address
   * slot kept evicting */
  _Static_assert(sizeof t->decoded[0] == 64, "a decoded entry is one cache line");
  _Static_assert((CKS_DECODED_SETS & (CKS_DECODED_SETS - 1)) == 0, "a power of two of sets");
  _Static_assert(DECODED_ENTRIES < 65536, "an entry's number + 1 fits the index");
  uint16_t *set = decoded_set(t, at);
  for (int way = 0; way < 2; way++) {
    if (!set[way]) break;
    const struct cks_decoded *c = &t->decoded[set[way] - 1];
    if (!decoded_is(c, bytes, comparable)) continue;
    out->kind = (enum cks_step_kind)c->kind;
    out->length = c->emu.length;
    out->rsp_delta = c->rsp_delta;
    out->target = at + c->emu.length + (uint64_t)(int64_t)c->target;
    out->cc = c->cc;
    out->stack_write = c->stack_write;
    out->write_disp = c->write_disp;
    out->write_size = c->write_size;
    return &c->emu;
  }
  /* a new entry, the next free one; when all are used, the index starts
   * again (entries handed out before are then only overwritten) */
  if (t->decoded_used >= DECODED_ENTRIES) {
    memset(t->decoded_index, 0, sizeof t->decoded_index);
    t->decoded_used = 0;
  }
  struct cks_decoded *c = &t->decoded[t->decoded_used];
  classify_bytes(t, at, bytes, size, out, &c->emu);
  t->decodes++;
  c->emu.length = 0;
  if (!out->length) return NULL;
  /* what does not fit the entry's fields (no encoding makes it: their
   * displacements and immediates are 32 bits) is not followed */
  int64_t rel = (int64_t)(out->target - (at + out->length));
  if ((out->kind == CKS_STEP_JUMP || out->kind == CKS_STEP_JCC) && rel != (int32_t)rel) out->kind = CKS_STEP_OTHER;
  if (out->rsp_delta != (int32_t)out->rsp_delta) out->kind = CKS_STEP_OTHER;
  if (out->stack_write == 1 && (out->write_disp != (int32_t)out->write_disp || out->write_size > 255))
    out->stack_write = 2;
  c->kind = (uint8_t)out->kind;
  c->rsp_delta = (int32_t)out->rsp_delta;
  c->target = out->kind == CKS_STEP_JUMP || out->kind == CKS_STEP_JCC ? (int32_t)rel : 0;
  c->cc = out->cc;
  c->stack_write = (uint8_t)out->stack_write;
  c->write_disp = (int32_t)out->write_disp;
  c->write_size = (uint8_t)out->write_size;
  memcpy(c->bytes, bytes, out->length);
  c->emu.length = (uint8_t)out->length;
  /* the newest entry in the first way, the one before it in the second */
  set[1] = set[0];
  set[0] = (uint16_t)++t->decoded_used;
  return &c->emu;
}

/* Zydis reads only the bytes of this instruction, which the thread is
 * about to run (so mapped); 15 is the longest encoding. The bytes an
 * entry kept are compared only within the page (another instruction may
 * be there now, shorter, at the end of the mapping). */
static const struct cks_emu_insn *classify(struct cks_thread *t, uint64_t at, struct cks_step_insn *out) {
  size_t in_page = 4096 - (at & 4095);
  return classify_cached(t, at, (const unsigned char *)(uintptr_t)at, 15, in_page < 15 ? in_page : 15, out);
}

#define PAGE_OF(a) ((a) & ~(uint64_t)4095)

/* Decoding past a conditional branch reads bytes that may never run, so
 * perhaps not mapped (a branch at the end of JIT code): outside the pages
 * known to be readable they are copied with process_vm_readv, which fails
 * where a read would fault. Length 0: nothing there to decode. */
static int in_code_segment(const struct cks_thread *t, uint64_t at, uint64_t size);

static void classify_ahead(struct cks_thread *t, uint64_t at, uint64_t known[2], struct cks_step_insn *out) {
  uint64_t lo = PAGE_OF(at), hi = PAGE_OF(at + 14);
  if (((lo == known[0] || lo == known[1]) && (hi == known[0] || hi == known[1])) || in_code_segment(t, at, 15)) {
    classify(t, at, out);
    return;
  }
  unsigned char copy[15];
  struct iovec local = {copy, sizeof copy}, remote = {(void *)(uintptr_t)at, sizeof copy};
  int saved = errno;
  ssize_t n = process_vm_readv(t->pid, &local, 1, &remote, 1, 0);
  errno = saved;
  out->kind = CKS_STEP_OTHER;
  out->length = 0;
  if (n <= 0) return;
  if (n == (ssize_t)sizeof copy) {
    known[0] = lo;
    known[1] = hi;
  }
  classify_cached(t, at, copy, (size_t)n, (size_t)n, out);
}

static int condition_holds(uint8_t cc, uint64_t fl) { return cc > 15 ? -1 : cks_emu_condition(cc, fl); }

/* ---- going on ---- */

static void single_step(struct cks_thread *t, greg_t *g) {
  t->waiting_bp = 0;
  g[REG_EFL] |= TF_BIT;
}

/* Steps decoded ahead of a conditional branch at most (bounds the decoding). */
#define SPECULATE_MAX (sizeof ((struct cks_thread *)0)->ahead_length)

/* Where to stop, from the conditional branch at `at` (the last step
 * written; the thread stands at step `first - 1`, p0): with one breakpoint
 * there, its flags decide. With more, the way goes on as if it were not
 * taken, a breakpoint on its taken target, up to the next place where the
 * state is needed, which gets the last breakpoint: the steps of the way are
 * written ahead (t->nspec of them after t->nsteps) and count only once a
 * hit says which way the thread went. A breakpoint's address must not lie
 * on the way before it is meant (p1 onwards; p0 is passed under RF): a hit
 * there would be taken for the branch, so the decoding falls back to the
 * last stop that was still unambiguous. Fills t->expect. */
static void plan_stops(struct cks_thread *t, struct cks_step_insn s, uint64_t at, uint64_t rsp, uint32_t first,
                       struct way_stack *ws) {
  uint64_t *steps = cks_steps_area(t);
  const uint32_t base = t->nsteps;
  struct cks_bp_expect target[CKS_BP_SLOTS];
  uint32_t k = 0, spec = 0;
  /* the best stop so far: at `at`, nothing ahead */
  uint32_t best_k = 0, best_spec = 0;
  uint64_t best_at = at, best_rsp = rsp;
  struct cks_step_count count = {t->nsteps, t->taken, t->prev};
  uint64_t known[2] = {PAGE_OF(at), PAGE_OF(at + s.length - 1)}; /* the branch's own bytes were read */
  while (s.kind == CKS_STEP_JCC && k + 1 < t->bp_slots) {
    uint64_t to = s.target;
    for (uint32_t i = first; i < base + spec; i++)
      if (steps[i] == to) goto done;
    for (uint32_t i = 0; i < k; i++)
      if (target[i].addr == to) goto done;
    target[k].addr = to;
    target[k].rsp = rsp;
    target[k].commit = spec;
    target[k].target = 1;
    target[k].length = s.length;
    target[k].period = 1;
    target[k].loop = CKS_LOOP_NONE;
    k++;
    uint64_t a = at + s.length;
    uint32_t before = s.length;
    for (;;) {
      if (spec >= SPECULATE_MAX || base + spec >= cks_cfg.step_cap) goto done;
      t->ahead_length[spec] = (uint8_t)before;
      steps[base + spec++] = a;
      for (uint32_t i = 0; i < k; i++)
        if (target[i].addr == a) goto done;
      int seen = 0;
      for (uint32_t i = first; i < base + spec - 1 && !seen; i++) seen = steps[i] == a;
      /* Decoded first: the rule below reads the bytes at `a` (a system
       * call?), which only a successful decoding shows to be readable. */
      classify_ahead(t, a, known, &s);
      if (!s.length) goto done;
      /* The vector ends at `a` if every branch ahead falls through: a stop
       * there confirms they did. */
      uint32_t end = cks_step_rule(&count, a, before);
      uint64_t ret_to = 0;
      int ret_known = s.kind == CKS_STEP_RET && way_return(t, ws, rsp, &ret_to);
      t->returns += (uint32_t)ret_known;
      if (end || (s.kind != CKS_STEP_PLAIN && s.kind != CKS_STEP_JUMP && !ret_known)) {
        if (!seen) {
          best_k = k;
          best_spec = spec;
          best_at = a;
          best_rsp = rsp;
        }
        if (end || seen) goto done;
        break;
      }
      way_step(ws, &s, a, rsp);
      rsp += (uint64_t)s.rsp_delta;
      before = s.length;
      a = s.kind == CKS_STEP_JUMP ? s.target : ret_known ? ret_to : a + s.length;
    }
    at = a;
  }
done:
  for (uint32_t i = 0; i < best_k; i++) t->expect[i] = target[i];
  t->expect[best_k].addr = best_at;
  t->expect[best_k].rsp = best_rsp;
  t->expect[best_k].commit = best_spec;
  t->expect[best_k].target = 0;
  t->expect[best_k].period = 1;
  t->expect[best_k].loop = CKS_LOOP_NONE;
  t->nexpect = best_k + 1;
}

/* A counted loop: a straight body from its head (instructions that only
 * move on, the stack pointer back where it was) up to a conditional branch
 * back to the head, with the thread standing at the head, or at that
 * branch about to take it. Each pass is then known but for its branch, so
 * the thread need not stop at every one: the head's breakpoint counts the
 * passes and traps at the one that fills the vector (its period), another
 * breakpoint after the branch traps at the way out, where the head's count
 * tells the passes. 1 when set up in t->expect. */
static int plan_counted_loop(struct cks_thread *t, const greg_t *g, uint64_t at, uint64_t rsp, int *emulable) {
  *emulable = 1;
  if (t->bp_slots < 2 || t->taken + 2 > cks_cfg.vector) return 0;
  struct cks_step_insn s;
  classify(t, at, &s);
  uint64_t head = at;
  if (s.kind == CKS_STEP_JCC) {
    if (s.target > at || condition_holds(s.cc, (uint64_t)g[REG_EFL]) != 1) return 0;
    head = s.target;
  } else if (s.kind != CKS_STEP_PLAIN) {
    return 0;
  }
  const uint32_t max = sizeof t->loop_body / sizeof t->loop_body[0];
  uint64_t a = head;
  int64_t moved = 0;
  uint32_t n = 0;
  for (;;) {
    if (n >= max) return 0;
    const struct cks_emu_insn *x = classify(t, a, &s);
    if (!x || x->op == CKS_EMU_NONE) *emulable = 0;
    t->loop_body[n] = a;
    t->loop_length[n] = (uint8_t)s.length;
    n++;
    if (s.kind != CKS_STEP_PLAIN) break;
    moved += s.rsp_delta;
    a += s.length;
  }
  if (s.kind != CKS_STEP_JCC || s.target != head || n < 2 || moved != 0) return 0;
  if (head != at && a != at) return 0; /* the branch the thread stands at must close this body */
  t->loop_n = n;
  t->loop_foreign = 0;
  t->loop_at = head == at ? 0 : n - 1;
  t->loop_passes = cks_cfg.vector - t->taken;
  struct cks_bp_expect *full = &t->expect[0], *out = &t->expect[1];
  memset(t->expect, 0, 2 * sizeof t->expect[0]);
  full->addr = head;
  full->rsp = rsp;
  full->period = t->loop_passes;
  full->loop = CKS_LOOP_FULL;
  out->addr = a + s.length;
  out->rsp = rsp;
  out->period = 1;
  out->loop = CKS_LOOP_EXIT;
  t->nexpect = 2;
  return 1;
}

/* The steps of the counted loop from where the thread stood: round the
 * body until the head was reached as often as its breakpoint counted,
 * then, at the way out, on to the branch and the instruction after it. */
static uint32_t loop_hit(struct cks_thread *t, int way_out) {
  uint64_t passes = t->loop_passes;
  const uint32_t n = t->loop_n;
  if (t->loop_foreign) return CKS_STEP_DROPPED;
  t->loops++;
  if (way_out) {
    uint64_t count = 0;
    int saved = errno;
    ssize_t got = read(t->bp_fd[t->loop_slot], &count, sizeof count);
    errno = saved;
    if (got != (ssize_t)sizeof count || count >= passes || (count == 0 && t->loop_at != 0))
      return CKS_STEP_DROPPED;
    passes = count;
  }
  uint32_t i = t->loop_at;
  for (uint64_t heads = 0; heads < passes;) {
    i = i + 1 == n ? 0 : i + 1;
    uint32_t stop = cks_append_step(t, t->loop_body[i], t->loop_length[i ? i - 1 : n - 1]);
    if (stop) return stop;
    if (i == 0) heads++;
  }
  if (!way_out) return 0;
  while (i + 1 < n) {
    i++;
    uint32_t stop = cks_append_step(t, t->loop_body[i], t->loop_length[i - 1]);
    if (stop) return stop;
  }
  return cks_append_step(t, t->loop_body[n - 1] + t->loop_length[n - 1], t->loop_length[n - 1]);
}

/* rep movs or rep stos where the thread stands, `count` (rcx) passes to
 * go: single-stepping stops after each pass, at the same address but after
 * the last, so those steps are known at once. The vector ends in them at
 * the step cap (a large copy: no stop at all), or goes on at the next
 * instruction, where a breakpoint stops the thread once the passes ran.
 * (A copy that faults for good ends the program mid-way, with a vector
 * already written that holds the passes it did not make.) 0, or why the
 * vector is complete. */
static uint32_t rep_passes(struct cks_thread *t, uint64_t at, uint64_t rsp, uint32_t length, uint64_t count) {
  for (uint64_t i = 1; i < count; i++) {
    uint32_t stop = cks_append_step(t, at, length); /* the step cap ends this */
    if (stop) return stop;
  }
  memset(t->expect, 0, sizeof t->expect[0]);
  t->expect[0].addr = at + length;
  t->expect[0].rsp = rsp;
  t->expect[0].target = 1;
  t->expect[0].length = length;
  t->expect[0].period = 1;
  t->expect[0].loop = CKS_LOOP_NONE;
  t->nexpect = 1;
  return 0;
}

/* ---- the look-ahead interpreter ---- */

/* Memory as the interpreter reads it at one trap: in place in the loaded
 * objects' segments (object_segments.c), lines copied once from the
 * thread's own stack at or above the page it stands in directly (mapped),
 * from anywhere else with process_vm_readv, which fails where a read
 * would fault: the handler never faults on an address the program's
 * registers make up. */
#define LA_LINE ((uint32_t)sizeof ((struct cks_thread *)0)->la_line[0])
/* a line read in place (in_place_reads.c), each load a read of its own */
static const unsigned char in_place_line;
#define LA_IN_PLACE (&in_place_line)
#define LA_LINES (sizeof ((struct cks_thread *)0)->la_line_at / sizeof(uint64_t))

/* `size` bytes at `addr` copied with process_vm_readv: 1, or 0 unreadable */
static int la_copy(struct cks_thread *t, void *out, uint64_t addr, uint32_t size) {
  int saved = errno;
  struct iovec local = {out, size}, remote = {(void *)(uintptr_t)addr, size};
  ssize_t n = process_vm_readv(t->pid, &local, 1, &remote, 1, 0);
  errno = saved;
  t->copies++;
  return n == (ssize_t)size;
}

static const unsigned char *la_line(struct cks_thread *t, uint64_t line) {
  if (t->la_line_at[t->la_last] == line + 1) return t->la_line_data[t->la_last];
  /* the lines of this trap are the first la_next (a trap reads ~8): the
   * rest are not looked at, nor their buffers touched */
  const uint32_t used = t->la_next < LA_LINES ? t->la_next : (uint32_t)LA_LINES;
  for (uint32_t i = 0; i < used; i++)
    if (t->la_line_at[i] == line + 1) return t->la_line_data[t->la_last = i];
  uint32_t i = t->la_next++ % LA_LINES;
  t->la_line_at[i] = 0;
  t->la_line_data[i] = t->la_line[i];
  uint64_t lo, hi;
  if (cks_object_segment(line, &lo, &hi) && hi - line >= LA_LINE) {
    t->la_line_data[i] = (const unsigned char *)(uintptr_t)line; /* a loaded object's: mapped */
  } else if (t->la_rsp >= t->stack_lo && t->la_rsp < t->stack_hi && line >= PAGE_OF(t->la_rsp) &&
      line + LA_LINE <= t->stack_hi && line + LA_LINE > line) {
    memcpy(t->la_line[i], (const void *)(uintptr_t)line, LA_LINE);
  } else if (t->la_in_place == 1 || (t->la_in_place < 0 && (t->la_in_place = cks_in_place_begin(t)) == 1)) {
    t->la_line_data[i] = LA_IN_PLACE;
  } else if (!la_copy(t, t->la_line[i], line, LA_LINE)) {
    return NULL;
  }
  t->la_line_at[i] = line + 1;
  t->la_last = i;
  return t->la_line_data[i];
}

static int la_read(void *ctx, uint64_t addr, void *out, uint32_t size) {
  struct cks_thread *t = ctx;
  unsigned char *o = out;
  while (size) {
    uint64_t line = addr & ~(uint64_t)(LA_LINE - 1);
    uint32_t off = (uint32_t)(addr - line), n = LA_LINE - off < size ? LA_LINE - off : size;
    const unsigned char *d = la_line(t, line);
    if (d == LA_IN_PLACE) {
      int r = cks_read_in_place(o, addr, n);
      if (r < 0) r = la_copy(t, o, addr, n);
      if (!r) {
        t->faulted++;
        return 0;
      }
    } else if (!d) {
      return 0;
    } else {
      memcpy(o, d + off, n);
    }
    o += n;
    addr += n;
    size -= n;
  }
  return 1;
}

/* %fs: the thread's TLS (the stack protector's canary, errno) */
static int la_fs(void *ctx, uint64_t *base) {
  struct cks_thread *t = ctx;
  if (!t->la_fs_known) {
    unsigned long b = 0;
    int saved = errno;
    t->la_fs_known = syscall(SYS_arch_prctl, ARCH_GET_FS, &b) == 0 ? 1 : -1;
    errno = saved;
    t->la_fs = b;
  }
  *base = t->la_fs;
  return t->la_fs_known == 1;
}

/* In the executable segment the thread runs in (mapped), `size` bytes at
 * `at` can be read in place. */
static int in_code_segment(const struct cks_thread *t, uint64_t at, uint64_t size) {
  return at >= t->la_code_lo && at < t->la_code_hi && t->la_code_hi - at >= size;
}

/* An instruction's bytes: as many of 15 as can be read (a mapping may end
 * after a short one), in place in the thread's code segment, else copied
 * into `copy`. */
static const unsigned char *la_fetch(struct cks_thread *t, uint64_t at, unsigned char *copy, uint32_t *n) {
  if (at >= t->la_code_lo && at < t->la_code_hi) {
    *n = t->la_code_hi - at < 15 ? (uint32_t)(t->la_code_hi - at) : 15;
    return (const unsigned char *)(uintptr_t)at;
  }
  uint32_t first = LA_LINE - (uint32_t)(at & (LA_LINE - 1));
  if (first >= 15)
    *n = la_read(t, at, copy, 15) ? 15 : 0;
  else if (!la_read(t, at, copy, first))
    *n = 0;
  else
    *n = la_read(t, at + first, copy + first, 15 - first) ? 15 : first;
  return copy;
}

enum la_outcome {
  LA_NONE,  /* the instruction the thread stands at is not emulated: nothing predicted */
  LA_AHEAD, /* steps predicted up to t->emu.rip, where the thread's own state is needed */
  LA_LOST   /* the way led where nothing decodes: the steps appended are to be undone */
};

/* From where the thread stands (registers g), the way ahead run on a copy
 * of its registers (emulate.h): each instruction emulated appends the
 * next step, each conditional branch decided by the emulated flags, each
 * return by the emulated stack; loads see memory as it is now with the
 * way's own stores over it. The thread itself is not touched: it runs the
 * same way natively once the handler returns. That is exact unless
 * another thread (or a device) writes memory the way reads between this
 * trap and the thread's reading it: then the thread may go elsewhere than
 * predicted, as a PMU would show, and the vector holds the prediction
 * (the manual says so). *stop: the vector ended on the way. */
static enum la_outcome look_ahead(struct cks_thread *t, const greg_t *g, uint32_t *stop) {
  static const int order[16] = {REG_RAX, REG_RCX, REG_RDX, REG_RBX, REG_RSP, REG_RBP, REG_RSI, REG_RDI,
                                REG_R8,  REG_R9,  REG_R10, REG_R11, REG_R12, REG_R13, REG_R14, REG_R15};
  struct cks_emu *e = &t->emu;
  for (int i = 0; i < 16; i++) e->r[i] = (uint64_t)g[order[i]];
  e->rip = (uint64_t)g[REG_RIP];
  e->flags = (uint64_t)g[REG_EFL];
  /* the SSE registers as the trap left them (its signal frame), for the
   * moves through them (emulate.h) */
  _Static_assert(sizeof e->xmm == sizeof t->la_fpregs->_xmm, "the frame's %xmm registers");
  e->xmm_known = t->la_fpregs != NULL;
  if (t->la_fpregs) memcpy(e->xmm, t->la_fpregs->_xmm, sizeof e->xmm);
  e->read = la_read;
  e->fs_base = la_fs;
  e->ctx = t;
  cks_emu_clear_stores(e);
  t->la_fs_known = 0;
  t->la_rsp = (uint64_t)g[REG_RSP];
  t->la_next = 0; /* no line read yet at this trap */
  t->la_last = 0;
  t->la_line_at[0] = 0;
  *stop = 0;
  unsigned char copy[15];
  struct cks_step_insn s;
  uint32_t n, done = 0;
  const unsigned char *bytes = la_fetch(t, e->rip, copy, &n);
  const struct cks_emu_insn *x = n ? classify_cached(t, e->rip, bytes, n, n, &s) : NULL;
  while (x && x->op != CKS_EMU_NONE) {
    uint32_t length = s.length;
    if (!cks_emu_step(e, x)) break;
    done++;
    /* decoded before it is a step: the step rule reads its bytes */
    bytes = la_fetch(t, e->rip, copy, &n);
    x = n ? classify_cached(t, e->rip, bytes, n, n, &s) : NULL;
    if (!x) {
      t->predicted += done;
      return LA_LOST;
    }
    *stop = cks_append_step(t, e->rip, length);
    if (*stop) break;
  }
  t->predicted += done;
  return done ? LA_AHEAD : LA_NONE;
}

CKS_FN uint32_t cks_block_step(struct cks_thread *t, greg_t *g) {
  /* The breakpoints are opened at the first stop that needs one (four
   * perf_event_open, ~2 us a vector of a bzip2 process's ~60): a thread
   * whose vectors all end in the interpreter never has any. */
  if (!decode_full || !cks_cfg.block_step || t->bp_state == -1) {
    single_step(t, g);
    return 0;
  }
  /* what was recorded up to where the thread stands, should the breakpoint fail */
  const uint32_t nsteps = t->nsteps, taken = t->taken;
  const uint64_t prev = t->prev;
  const uint32_t predicted = t->predicted;
  g[REG_EFL] &= ~TF_BIT;
  int look = cks_cfg.look_ahead;
  /* the code segment the thread runs in is mapped: the code ahead in it is
   * read in place */
  t->la_code_lo = t->la_code_hi = 0;
  uint64_t code_lo, code_hi;
  if (cks_object_segment((uint64_t)g[REG_RIP], &code_lo, &code_hi)) {
    t->la_code_lo = code_lo;
    t->la_code_hi = code_hi;
  }
again:;
  uint64_t at = (uint64_t)g[REG_RIP], rsp = (uint64_t)g[REG_RSP];
  int here = 1; /* `at` is where the thread stands: its registers are g */
  struct cks_step_insn s;
  struct way_stack ws;
  ws.rsp_now = rsp;
  ws.emu = NULL;
  ws.n = 0;
  ws.unknown = 0;
  /* after a return known from the stack, the bytes are read with care */
  int from_stack = 0;
  uint64_t known[2] = {0, 0};
  /* The interpreter first: nearly every vector ends in it, and then the
   * counted loop's check below (which decodes the straight line from here,
   * ~10 us a vector on caches the program evicted) is not needed. */
  enum la_outcome la = LA_NONE;
  if (look) {
    uint32_t stop;
    la = look_ahead(t, g, &stop);
    if (stop) return stop; /* the vector is complete: the caller writes it */
  }
  if (!breakpoint_ready(t)) {
    /* back to where the thread stands, and single-step from there */
    t->nsteps = nsteps;
    t->taken = taken;
    t->prev = prev;
    t->predicted = predicted;
    single_step(t, g);
    return 0;
  }
  /* A counted loop costs one stop for all its passes; the interpreter
   * none, where it runs the whole body. */
  int loop_emulable;
  if (plan_counted_loop(t, g, at, rsp, &loop_emulable) && !(look && loop_emulable)) {
    /* the loop's steps start where the thread stands, not where the
     * interpreter stopped */
    t->nsteps = nsteps;
    t->taken = taken;
    t->prev = prev;
    t->predicted = predicted;
    goto arm;
  }
  if (look) {
    if (la == LA_LOST) goto undo;
    if (la == LA_AHEAD) {
      at = t->emu.rip;
      rsp = t->emu.r[4];
      here = 0;
      from_stack = 1; /* bytes past a branch are read with care */
      ws.emu = &t->emu;
    }
  }
  for (;;) {
    if (from_stack)
      classify_ahead(t, at, known, &s);
    else
      classify(t, at, &s);
    uint64_t next;
    if (s.kind == CKS_STEP_PLAIN) {
      next = at + s.length;
    } else if (s.kind == CKS_STEP_JUMP) {
      next = s.target;
    } else if (s.kind == CKS_STEP_RET && !here && way_return(t, &ws, rsp, &next)) {
      from_stack = 1;
      t->returns++;
    } else if (!here) {
      break; /* the thread's state is needed at `at`: stop there */
    } else if (s.kind == CKS_STEP_JCC) {
      int taken_now = condition_holds(s.cc, (uint64_t)g[REG_EFL]);
      if (taken_now < 0) {
        single_step(t, g);
        return 0;
      }
      next = taken_now ? s.target : at + s.length;
    } else if (s.kind == CKS_STEP_RET) {
      next = *(const uint64_t *)(uintptr_t)g[REG_RSP];
    } else if (s.kind == CKS_STEP_REP) {
      uint32_t stop = rep_passes(t, at, rsp, s.length, (uint64_t)g[REG_RCX]);
      if (stop) return stop;
      goto arm;
    } else {
      single_step(t, g);
      return 0;
    }
    way_step(&ws, &s, at, rsp);
    rsp += (uint64_t)s.rsp_delta;
    here = 0;
    uint32_t stop = cks_append_step(t, next, s.length);
    if (stop) return stop; /* the vector is complete: the caller writes it */
    at = next;
  }
  if (ws.emu) {
    /* The interpreter ran loops and calls: a stop where the way passed
     * before (an unreadable load in a later pass, a function called
     * twice) would be hit early. Not predicted then. */
    const uint64_t *steps = cks_steps_area(t);
    for (uint32_t i = nsteps; i + 1 < t->nsteps; i++)
      if (steps[i] == at) goto undo;
  }
  plan_stops(t, s, at, rsp, nsteps, &ws);
  goto arm;
undo:
  t->nsteps = nsteps;
  t->taken = taken;
  t->prev = prev;
  t->predicted = predicted; /* steps predicted count only where kept */
  look = 0;
  goto again;
arm:
  /* The way may lead back to where the thread stands: a breakpoint must
   * not fire before the instruction there ran once. */
  g[REG_EFL] |= RF_BIT;
  const uint64_t *way = t->loop_body;
  uint32_t nway = t->loop_n;
  if (t->expect[0].loop == CKS_LOOP_NONE) {
    uint32_t ahead = 0;
    for (uint32_t i = 0; i < t->nexpect; i++)
      if (t->expect[i].commit > ahead) ahead = t->expect[i].commit;
    way = cks_steps_area(t) + nsteps;
    nway = t->nsteps + ahead - nsteps;
  }
  if (!arm_breakpoints(t, way, nway)) {
    /* Back to where the thread stands, and single-step from there. */
    t->nsteps = nsteps;
    t->taken = taken;
    t->prev = prev;
    give_up_breakpoint(t, "the hardware breakpoint could not be moved: branch vectors are single-stepped");
    single_step(t, g);
    return 0;
  }
  t->waiting_bp = 1;
  return 0;
}

CKS_FN uint32_t cks_block_step_hit(struct cks_thread *t, greg_t *g) {
  /* Not the thread's way (a signal handler of the program on another
   * frame, or a breakpoint left from a vector that ended): run on. */
  if (!t->waiting_bp) return 0;
  uint64_t rip = (uint64_t)g[REG_RIP], rsp = (uint64_t)g[REG_RSP];
  const struct cks_bp_expect *e = NULL;
  for (uint32_t i = 0; i < t->nexpect && !e; i++)
    if (t->expect[i].addr == rip && t->expect[i].rsp == rsp) e = &t->expect[i];
  if (!e) {
    /* A counted loop's breakpoint on another frame (the program's signal
     * handler running the same loop): its passes were counted too, so the
     * count will not tell the thread's own. */
    for (uint32_t i = 0; i < t->nexpect; i++)
      if (t->expect[i].addr == rip && t->expect[i].loop != CKS_LOOP_NONE) t->loop_foreign = 1;
    return 0;
  }
  t->bp_hits++;
  if (e->loop != CKS_LOOP_NONE) {
    uint32_t stop = loop_hit(t, e->loop == CKS_LOOP_EXIT);
    return stop ? stop : cks_block_step(t, g);
  }
  /* the way ran up to here: its steps count (the vector may end on them) */
  const uint64_t *steps = cks_steps_area(t);
  for (uint32_t i = 0; i < e->commit; i++) {
    uint32_t stop = cks_append_step(t, steps[t->nsteps], t->ahead_length[i]);
    if (stop) return stop;
  }
  if (e->target) {
    uint32_t stop = cks_append_step(t, e->addr, e->length);
    if (stop) return stop;
  }
  return cks_block_step(t, g);
}

CKS_FN int cks_block_step_tick(struct cks_thread *t) {
  if (!t->waiting_bp) return 0;
  if (t->bp_hits) {
    t->bp_hits = 0;
    return 0;
  }
  /* A whole tick without reaching a breakpoint: the program left the
   * way (longjmp from a signal handler, a thread cancelled): the steps
   * recorded ahead may not have run, so the vector is dropped. */
  cks_block_step_done(t);
  t->stepping = 0;
  return 1;
}
