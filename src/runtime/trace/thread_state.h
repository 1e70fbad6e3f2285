/* Per-thread state: reached through one initial-exec TLS pointer, the rest
 * in a private mapping made at the thread's first event. */
#ifndef CKT_THREAD_STATE_H
#define CKT_THREAD_STATE_H

#include <sys/types.h>

#include "ckt_base.h"
#include "stream_writer.h"

/* One open call. slot: the stack address that holds the call's return
 * address (in its caller's frame), found from the hook; its low bits are
 * flags: CKT_WRITTEN (the enter was written, so the exit must be) or
 * CKT_PENDING. site: the return address (call_site); ra: where the enter
 * hook was called from (tells the copies that GCC and clang inline, which
 * share their host's slot and site, from a fresh call; see shadow_stack.h). */
struct ckt_frame {
  uintptr_t fn, slot, site, ra;
};
#define CKT_WRITTEN ((uintptr_t)1)
#define CKT_PENDING ((uintptr_t)2)  /* min time: enter held, may be taken back (see ckt_pend) */
/* -pg hooks: the slot holds the exit trampoline's address while the call
 * runs, and `site` the original return address (see return_hook.h). */
#define CKT_HOOKED ((uintptr_t)4)
#define CKT_SLOT(f) ((f)->slot & ~(uintptr_t)7)

/* Function id table: open addressing, address -> id (low 16 bits) and the
 * distance in words from the enter hook's CFA to the slot of the return
 * address, as last seen for that function (high 16 bits; CKT_OFF_NONE: not
 * known yet, CKT_OFF_FAR: beyond CKT_SLOT_SCAN, use the CFA). */
#define CKT_FT_BITS 17
#define CKT_FT_SIZE (1u << CKT_FT_BITS)
#define CKT_MAX_IDS 65536u
#define CKT_NO_ID UINT32_MAX
#define CKT_ID(v) ((v) & 0xffffu)
#define CKT_OFF(v) ((v) >> 16)
#define CKT_OFF_NONE 0xffffu
#define CKT_OFF_FAR 0xfffeu
/* A key whose function's module was unloaded (events.h,
 * ckt_func_forget_gone): never a function's address, and not 0, which
 * would end the probe sequences that pass it. */
#define CKT_KEY_GONE ((uintptr_t)1)
/* Open calls tracked per thread (a 8 MiB stack holds fewer instrumented
 * frames); deeper calls are counted lost and the stream stays nested. */
#define CKT_STACK_CAP (1u << 18)
#define CKT_NONE UINT32_MAX

/* Min time: a held enter. It is written at once, where it belongs, so that
 * a reader sees it when the thread never returns (killed, or still running
 * at the process end), but it can be taken back: if the call proves short
 * and no callee was recorded, the stream is rewound to `pos` (the enter and
 * its `define`, if any, are zeroed) and the counter to `last`. The held
 * frames are the recordable frames above the kept ones (a kept frame's
 * ancestors are kept). */
struct ckt_pend {
  uint64_t time;   /* of the enter */
  uint64_t pos;    /* file offset where its bytes start */
  uint64_t last;   /* the thread's counter before it */
  uint32_t id;
  uint8_t defined; /* its `define` was written with it */
};

/* `slow` is also set by other threads (CKT_SLOW_UNLOADED, from a dlclose):
 * every change of it is atomic. */
enum { CKT_SLOW_MINTIME = 1, CKT_SLOW_OVERFLOW = 2, CKT_SLOW_FILTER = 4 /* filters.h */, CKT_SLOW_UNLOADED = 8 };

/* -pg hooks: hooked frames closed while maybe still live (found under
 * frames of another stack: a coroutine's), so that their trampoline can
 * still return. */
#define CKT_ORPHANS 64
struct ckt_orphan {
  uintptr_t slot, site;
};

struct ckt_thread {
  /* The hot fields, one cache line (the state is page aligned). */
  uint64_t last;        /* counter of the last written event */
  struct ckt_frame *stack;
  uintptr_t *keys;
  uint32_t *ids;
  uint32_t depth;
  uint32_t fast_depth;  /* min(max_depth, CKT_STACK_CAP): deeper frames take the slow path */
  uint32_t lost;        /* dropped, not yet reported (signal handlers add to it) */
  uint8_t busy;         /* inside a hook: re-entrant events are dropped */
  uint8_t slow;         /* CKT_SLOW_*: take the slow paths */
  uint8_t real;         /* 0: a static stand-in (inert, ended) that drops everything */
  struct ckt_stream s;  /* cur and limit first: hot too */
  uint32_t max_depth;   /* frames at index >= max_depth are not written */
  uint32_t pend_lo;     /* min time: lowest held frame, CKT_NONE if none */
  struct ckt_pend *pend; /* min time: per frame */
  uint64_t min_ticks;   /* min time in counter ticks */
  uint32_t nids;
  uint32_t overflow;    /* calls nested beyond CKT_STACK_CAP (untracked) */
  pid_t tid;
  uintptr_t stack_lo, stack_hi;  /* the thread's stack (whole address space if unknown) */
  size_t map_bytes;     /* this state's mapping */
  struct ckt_thread *next, *prev;  /* registry of live states */
  uint32_t only_lo;     /* filters: outermost open -F frame, CKT_NONE if none */
  uint32_t notrace_lo;  /* filters: outermost open -N frame, CKT_NONE if none */
  uint32_t norphans;    /* -pg hooks: orphans[] written so far (a ring) */
  uint32_t gone_seen;   /* gone modules' segments already forgotten (ckt_modules_gone_count) */
  struct ckt_orphan orphans[CKT_ORPHANS];
  uint8_t defined[CKT_MAX_IDS / 8];  /* ids whose `define` is in the stream */
  uint8_t fflags[CKT_MAX_IDS];       /* filters: CKT_FF_* of each id (untouched pages cost nothing) */
  uint8_t scratch[8192];
};

extern __thread struct ckt_thread *ckt_tls __attribute__((tls_model("initial-exec")));
/* busy, not real: hooks return at once. */
extern struct ckt_thread ckt_thread_off;

CKT_FN pid_t ckt_gettid(void);
/* The registry of live states (for fork and the process end). */
CKT_FN void ckt_registry_lock(void);
CKT_FN void ckt_registry_unlock(void);
CKT_FN void ckt_registry_add(struct ckt_thread *t);
CKT_FN void ckt_registry_remove(struct ckt_thread *t);
/* The first state (under the lock; NULL when none). */
CKT_FN struct ckt_thread *ckt_registry_first(void);
/* In a forked child: releases every state but `keep` (threads that do not exist). */
CKT_FN void ckt_registry_forget_others(struct ckt_thread *keep);

#endif
