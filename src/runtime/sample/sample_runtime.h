/* libcovkit-sample: what the files of the runtime share. The runtime runs
 * inside the sampled program: C11, no allocation and only async-signal-safe
 * calls in the signal handlers, nothing that could make the program fail. */
#ifndef CKS_SAMPLE_RUNTIME_H
#define CKS_SAMPLE_RUNTIME_H

#include <link.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include "emulate.h"
#include "sample_contract.h"

#define CKS_FN __attribute__((visibility("hidden")))
#define CKS_API __attribute__((visibility("default")))

/* ---- config.c: the environment, read once per image ---- */
struct cks_config {
  char dir[4096];
  int branch_mode;     /* 1: single-step after each tick; 0: pc only */
  int breakpoint_mode; /* 1: one-shot int3s (breakpoints.c), no ticks at all */
  char plan_socket[108]; /* breakpoint mode: sun_path of covkit's plan server */
  uint64_t period_ns;
  uint32_t vector, step_cap;
  uint32_t block_step; /* 0: CKS_ENV_STEPPING is "instruction"; else the hardware breakpoints a thread may use */
  int look_ahead;      /* block stepping predicts the way with the interpreter (emulate.h); 0: "decode" */
  int step_stats; /* CKS_ENV_STEP_STATS is set */
};
extern struct cks_config cks_cfg;
CKS_FN int cks_read_config(void); /* 0: inert (no directory) */
extern int cks_active;    /* sampling (branch, pc); set by process.c */
extern int cks_bp_active; /* breakpoint mode; set by process.c */

/* ---- sample_file.c: the image's .cks file ---- */
CKS_FN int cks_open_image_file(void); /* 0 on failure (then the runtime stays inert) */
/* Appends one record (header filled in here); async-signal-safe. Counts a
 * lost record when the file is gone, full or at its size limit. */
CKS_FN void cks_write_record(void *rec, uint32_t size, uint16_t kind, uint16_t flags);
/* The same in two steps, for many records in one write(2). */
CKS_FN void cks_fill_header(void *rec, uint32_t size, uint16_t kind, uint16_t flags);
CKS_FN void cks_write_raw(const void *records, uint32_t size);
CKS_FN void cks_write_image_record(void);
CKS_FN void cks_warn(const char *text); /* a WARNING record; async-signal-safe */
CKS_FN void cks_warn_once(int *flag, const char *text);

/* proc_lines.c: each line of the text at `fd`, NUL-terminated and cut to
 * its first CKS_LINE_MAX - 1 bytes (the kernel's lines read here are
 * told by how they start), handed to `fn` until it returns nonzero.
 * 0 at the end or when `fn` stopped, -1 when a read failed. */
#define CKS_LINE_MAX 512
CKS_FN int cks_for_each_line(int fd, int (*fn)(const char *line, void *arg), void *arg);
CKS_FN void cks_warn_about(const char *subject, const char *what); /* "subject: what", cut to fit */
CKS_FN void cks_write_end(void);
extern uint64_t cks_lost; /* atomic */

/* ---- maps.c: executable mappings with build-ids (not in signal context) ---- */
CKS_FN void cks_write_mappings(void);
CKS_FN void cks_refresh_mappings(void); /* writes them again only after a dlopen or dlclose */

/* ---- thread.c: per-thread state and timer ---- */
#define CKS_BP_SLOTS 4 /* x86's debug registers */
#define CKS_DECODED_SETS 8192
#ifndef CKS_LA_LINE
#define CKS_LA_LINE 1024
#define CKS_LA_LINES 64
#endif
struct cks_thread {
  int tid;
  pid_t pid; /* the process, noted where the thread starts (a fork's child starts it again): no getpid a copy */
  int timer_ok, stepping; /* timer_ok: atomic (cks_threads_stop_ticks clears it from another thread) */
  timer_t timer;
  struct cks_thread *next_thread, *prev_thread; /* the threads with a timer (thread.c's list) */
  int listed;
  uint64_t rng;
  uintptr_t stack_lo, stack_hi; /* the thread's stack, captured at its start */
  uint64_t prev;                /* last stepped address */
  uint32_t nsteps, nstack, taken, stop;
  uint64_t ip;
  uint64_t tick_ns; /* thread CPU time at the tick (step_stats) */
  size_t mapped; /* bytes of this mapping */
  void *(*start_fn)(void *); /* a new thread's function and argument (pthread_create) */
  void *start_arg;
  /* block stepping (block_step.c): the thread's hardware breakpoints */
  int bp_state;           /* 0: not opened yet, 1: open, -1: unavailable (steps instruction by instruction) */
  int bp_tid;             /* the thread that opened them: a fork's child must not move its parent's */
  uint32_t bp_slots;      /* opened (1..CKS_BP_SLOTS) */
  int bp_fd[CKS_BP_SLOTS];
  uint64_t bp_at[CKS_BP_SLOTS]; /* enabled at this address; 0: disabled */
  uint64_t bp_period[CKS_BP_SLOTS]; /* hits per trap (a counted loop's head), 1 otherwise */
  int waiting_bp;         /* 1: the vector goes on at a breakpoint; 0: at the next single step */
  uint32_t bp_hits;       /* breakpoint hits since the last tick (a vector that stopped moving is dropped) */
  uint32_t traps, bp_moves; /* this vector's traps and breakpoint changes (CKS_ENV_STEP_STATS) */
  uint32_t traps_at_tick;   /* its traps at the last tick (handlers.c: single-stepping that stopped) */
  uint32_t loops, returns;  /* and its counted loops, and returns passed without a stop */
  uint32_t predicted;       /* and the instructions the look-ahead interpreter ran for it */
  uint32_t copies;          /* and the memory lines it copied with process_vm_readv */
  uint32_t decodes;         /* and the instructions decoded (not in the decode cache) */
  uint32_t zydis_decodes;   /* and of those, the ones Zydis decoded (not the quick decoder) */
  uint32_t faulted;         /* and the interpreter's reads in place that faulted */
  uint32_t nexpect;       /* where the thread may stop next: */
  struct cks_bp_expect {
    uint64_t addr, rsp;   /* a hit counts there with this stack pointer */
    uint32_t commit;      /* steps decoded ahead that ran when it is hit */
    int target;           /* 1: a conditional branch's taken target (the step to append); 0: the stop itself */
    uint32_t length;      /* the branch's length (target) */
    uint32_t period;      /* passes before the trap (a counted loop's head), else 1 */
    int loop;             /* CKS_LOOP_*: a counted loop's head after its last pass, or its exit */
  } expect[CKS_BP_SLOTS];
  /* A counted loop (block_step.c): a straight body from its head to a
   * conditional branch back to the head; the head's breakpoint counts the
   * passes and traps at the last one the vector needs. */
  uint32_t loop_n;            /* instructions of the body, head and branch included */
  uint32_t loop_at;           /* where the thread stood in it (0: the head; loop_n - 1: the branch) */
  uint32_t loop_slot;         /* the slot that counts the passes */
  int loop_foreign;           /* its breakpoints were hit on another frame: the count is not the thread's */
  uint32_t loop_passes;       /* its period */
  uint64_t loop_body[128];
  uint8_t loop_length[128];
  uint8_t ahead_length[256]; /* the length of the instruction before each step decoded ahead */
  /* Instructions decoded before (block_step.c), found by address and
   * used while the bytes there are the same: the same bytes decode the
   * same anywhere, since targets and rip-relative operands are kept
   * relative. One cache line an entry (the handler runs on caches the
   * program has filled with its own data since the last tick: each entry
   * read is a miss). The entries are handed out in the order first met
   * (so mostly in the order the code runs), and an index by address (two
   * ways a set, neighbouring addresses in neighbouring sets) names them:
   * the pages the thread touches are those its instructions fill, not one
   * for every 64 bytes of code the address spreads over (each first touch
   * is a page fault, ~1 us on this VM). Entry n is index value n + 1. */
  uint16_t decoded_index[CKS_DECODED_SETS][2];
  uint32_t decoded_used; /* entries handed out; at the last, the index starts again */
  struct cks_decoded {
    uint8_t bytes[15];
    uint8_t kind;             /* block_step.c's step_kind; the length is emu.length (0: empty) */
    uint8_t stack_write, write_size;
    uint8_t cc;               /* a conditional branch's x86 condition; 0xff: another (loop, jrcxz) */
    uint8_t unused;
    int32_t target;           /* a branch's, from the next instruction */
    int32_t rsp_delta, write_disp;
    struct cks_emu_insn emu;  /* op CKS_EMU_NONE: not emulated */
  } __attribute__((aligned(64))) decoded[8192];
  /* The look-ahead interpreter (block_step.c): its copy of the registers,
   * and the memory it read at this trap, copied in lines with
   * process_vm_readv (which fails where a read would fault). */
  struct cks_emu emu;
  const struct _libc_fpstate *la_fpregs; /* the trap's SSE registers (the signal frame's); NULL: unknown */
  uint64_t la_rsp;   /* the thread's stack pointer at this trap */
  int la_fs_known;
  uint64_t la_fs;
  /* reads off the loaded objects and the stack at this trap (in_place_reads.c):
   * -1 not asked yet, 0 copied with process_vm_readv, 1 read in place */
  int la_in_place;
  const sigset_t *la_mask;            /* the signal mask where the trap interrupted the thread */
  uint32_t la_next;  /* lines taken at this trap (the next replaced: la_next % CKS_LA_LINES) */
  uint32_t la_last;  /* the line read last */
  uint64_t la_code_lo, la_code_hi; /* the segment the thread runs in (object_segments.c): read in place */
  /* lines of 1 KiB: a copy costs the system call and as much again for
   * 4 KiB of the program's cold data, and the loads ahead of one trap
   * seldom go far in one place */
  uint64_t la_line_at[CKS_LA_LINES]; /* a line's address + 1; 0: empty */
  const unsigned char *la_line_data[CKS_LA_LINES]; /* the copy, or the line itself in a loaded object */
  unsigned char la_line[CKS_LA_LINES][CKS_LA_LINE];
  /* the record being built: header, fixed part, stack, steps */
  uint64_t record[];
};
CKS_FN struct cks_thread *cks_thread_create(void); /* mmap; NULL on failure */
CKS_FN void cks_thread_start(struct cks_thread *t); /* this thread's: stack, timer, TLS */
CKS_FN void cks_thread_arm(struct cks_thread *t);   /* the next tick, jittered */
CKS_FN struct cks_thread *cks_self(void);
CKS_FN void cks_threads_check_held_ticks(void); /* warns when a thread kept the ticks blocked */
CKS_FN int cks_thread_key_init(void); /* and the list's fork handlers */
/* Deletes every thread's timer, and no thread starts one from then on:
 * no tick of the runtime is raised after it returns (one already pending
 * in another thread is dropped with the timer by recent kernels, 6.18
 * here; an older one may deliver it). Not in a
 * handler of the runtime; safe in the program's. */
CKS_FN void cks_threads_stop_ticks(void);
CKS_FN int cks_ticks_stopped(void);

/* ---- in_place_reads.c: the interpreter's loads without a system call ---- */
CKS_FN void cks_in_place_init(void); /* not in signal context */
/* At a trap's first read off the loaded objects and the stack (t->la_mask
 * set): 1 when reads in place are safe, their fault handler installed
 * until cks_in_place_end; 0: copy with process_vm_readv. */
CKS_FN int cks_in_place_begin(struct cks_thread *t);
CKS_FN void cks_in_place_end(struct cks_thread *t);
/* 1: `size` bytes at `addr` read into `out`; 0: the read faulted; -1: the
 * program's dispositions are back (a kill() meanwhile): copy instead.
 * Only between cks_in_place_begin (1) and cks_in_place_end. */
CKS_FN int cks_read_in_place(void *out, uint64_t addr, uint32_t size);
CKS_FN void cks_in_place_thread_created(void); /* process.c: a second thread (no more stand-in handlers) */
CKS_FN void cks_in_place_forked(void);         /* a fork's child: one thread again */

/* ---- handlers.c ---- */
CKS_FN int cks_install_handlers(void);
CKS_FN int cks_handlers_ours(int sig);
CKS_FN int cks_is_tick_handler(const struct sigaction *act); /* act installs the runtime's SIGPROF handler */
CKS_FN void cks_write_step_stats(void); /* the WARNING of CKS_ENV_STEP_STATS */

/* ---- object_segments.c: the loaded objects' segments, read in place ---- */
CKS_FN void cks_object_segments_build(void); /* not in signal context */
/* The segment of a loaded object holding `addr` (async-signal-safe): 1
 * with its bounds, 0 when not listed or the table is changing. */
CKS_FN int cks_object_segment(uint64_t addr, uint64_t *lo, uint64_t *hi);

/* ---- steps.c: the vector's steps and the rules that end it ---- */
CKS_FN uint64_t *cks_steps_area(struct cks_thread *t); /* after the stack in t->record */
/* Appends `ip` to the vector's steps; 0 while the vector goes on, else why
 * it is complete (CKS_SAMPLE_STOP_*: full, the step cap, the kernel next),
 * for the caller to write it. */
/* `prev_length`: the length of the instruction at the last step (0:
 * unknown), which tells a taken branch from the next instruction. */
CKS_FN uint32_t cks_append_step(struct cks_thread *t, uint64_t ip, uint32_t prev_length);
/* The same rule on counters alone (block_step.c decodes ahead of the thread). */
struct cks_step_count {
  uint32_t nsteps, taken;
  uint64_t prev;
};
CKS_FN uint32_t cks_step_rule(struct cks_step_count *c, uint64_t ip, uint32_t prev_length);
CKS_FN int cks_enters_kernel(uint64_t ip); /* syscall, sysenter or int 0x80 at ip */

/* ---- block_step.c: from branch to branch with a hardware breakpoint ---- */
CKS_FN void cks_block_step_init(void); /* not in signal context; without Zydis every vector single-steps */
/* The thread stands at g's IP, the vector's last step: goes on by decoding
 * ahead to the next instruction whose effect needs the thread's state, and
 * stops there (a hardware breakpoint) or single-steps (TF). Returns 0, or
 * why the vector is complete on the way (cks_append_step), for the caller
 * to write it. */
CKS_FN uint32_t cks_block_step(struct cks_thread *t, greg_t *g);
/* A SIGTRAP of the hardware breakpoint (si_code TRAP_PERF); as cks_block_step. */
CKS_FN uint32_t cks_block_step_hit(struct cks_thread *t, greg_t *g);
/* cks_block_step_hit's answer when the steps since the tick are not known
 * (a counted loop's count unreadable): the vector is dropped. */
#define CKS_STEP_DROPPED 0x80000000u
enum { CKS_LOOP_NONE, CKS_LOOP_FULL, CKS_LOOP_EXIT };
CKS_FN int cks_block_step_tick(struct cks_thread *t); /* a tick while waiting: 1 when the vector was dropped */
/* The length of the instruction at `at`, which ran (so is mapped); 0
 * without Zydis. */
CKS_FN uint32_t cks_instruction_length(uint64_t at);
CKS_FN void cks_block_step_done(struct cks_thread *t); /* the vector was written: breakpoint off */
CKS_FN void cks_block_step_forked(struct cks_thread *t); /* a fork's child: the parent's breakpoint goes */
CKS_FN void cks_block_step_end(struct cks_thread *t);    /* the thread ends */

/* ---- breakpoints.c: breakpoint mode (not in signal context but the handler) ---- */
CKS_FN int cks_breakpoints_start(void); /* handler installed, loaded objects planted; 0: inert */
CKS_FN void cks_breakpoints_refresh(void); /* plants objects loaded since (after dlopen) */
CKS_FN void cks_breakpoints_forked(void);  /* in a fork's child: the parent's descriptors go */
CKS_FN int cks_breakpoint_trap(int sig, siginfo_t *si, void *ctx); /* 1: one of ours, handled */

/* ---- plan_client.c: asks covkit where to plant ---- */
struct cks_plan {
  uint64_t *vaddrs; /* mmap'd; cks_plan_free */
  uint64_t count;
  size_t mapped;
};
/* 1 with the plan (count may be 0); 0 when there is none, a WARNING written. */
CKS_FN int cks_plan_request(int *conn, const char *path, const unsigned char *build_id, uint32_t build_id_size,
                            struct cks_plan *out);
CKS_FN void cks_plan_free(struct cks_plan *plan);
CKS_FN size_t cks_build_id(const struct dl_phdr_info *info, unsigned char *out); /* maps.c */

/* ---- shared_files.c: breakpoint mode's files shared by a recording's processes ---- */
/* An object's flags, one per site, 1 once hit anywhere; NULL when there can
 * be none (no build-id, no file). */
CKS_FN unsigned char *cks_shared_hits(const char *object, const unsigned char *id, uint32_t id_size, uint32_t count);
struct cks_text_sites {
  const uint64_t *sites; /* ascending addresses in the process, all in [lo, hi) */
  const unsigned char *hit;
  uint32_t count;
};
struct cks_text { /* an object's text mapped from its .text file */
  int fd;          /* the file, kept open for the handler's restores; -1: none */
  uint64_t lo;     /* the mapping's first address (the file's offset 0) */
  dev_t dev;
  ino_t ino;
};
/* Maps the planted text of [lo, hi) (whole pages of one executable segment)
 * over it from the recording's .text file, made from this process's memory
 * with int3s at the sites not hit yet if no process made it before: 1 done,
 * 0 nothing changed (plant page by page then). */
CKS_FN int cks_shared_text(const char *object, const unsigned char *id, uint32_t id_size, uint64_t lo, uint64_t hi,
                           int prot, const struct cks_text_sites *sites, struct cks_text *out);
/* Puts `byte` back at `at` in the file (so in every process mapping it);
 * async-signal-safe; 0 when the descriptor is not the file's any more or
 * the page at `at` is this process's own copy (the program wrote it). */
CKS_FN int cks_shared_text_restore(const struct cks_text *t, uint64_t at, unsigned char byte);
CKS_FN void cks_shared_text_close(struct cks_text *t); /* the object was unloaded */

/* ---- signal_guard.c: breakpoint mode keeps SIGTRAP deliverable ---- */
/* 1 from `planted`: the SIGTRAP was a planted int3, handled; else it is the program's. */
typedef int (*cks_trap_fn)(int sig, siginfo_t *si, void *ctx);
/* Breakpoint mode's SIGTRAP handler, which asks `planted` first; 0 on failure. */
CKS_FN int cks_install_trap_handler(cks_trap_fn planted);
/* What `sig` would have done without the runtime: its default disposition
 * back, and `sig` again for this thread (delivered once the handler returns). */
CKS_FN void cks_default_action(int sig);
/* `changing` is called before the program's sigaction(), signal(),
 * sigset(), bsd_signal() or sysv_signal() sets SIGPROF's disposition
 * (with the new one; a query does not call it), in whatever context the
 * program calls them (its signal handlers included). */
typedef void (*cks_prof_fn)(const struct sigaction *act);
CKS_FN void cks_watch_prof_disposition(cks_prof_fn changing);

/* ---- process.c: the image's life (constructor, fork, threads, destructor) ---- */

#endif
