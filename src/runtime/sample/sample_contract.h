/* The contract between libcovkit-sample (which writes sample files into a
 * recording directory), covkit's reader and writer
 * (src/format/sample_recording_*) and `covkit sample record` (which sets the
 * runtime's environment): variable names, file names and record layouts.
 * docs/sample-format.md is its prose. C11 and C++: constants, and the one
 * encoder both writers use. */
#ifndef COVKIT_SAMPLE_CONTRACT_H
#define COVKIT_SAMPLE_CONTRACT_H

#include <stdint.h>

/* ---- environment of the sampled program ---- */
#define CKS_ENV_DIR "COVKIT_SAMPLE_DIR"             /* required: without it the runtime is inert */
#define CKS_ENV_MODE "COVKIT_SAMPLE_MODE"           /* "branch" (default), "pc" or "breakpoint" */
#define CKS_ENV_PERIOD_NS "COVKIT_SAMPLE_PERIOD_NS" /* mean thread CPU time between samples */
#define CKS_ENV_VECTOR "COVKIT_SAMPLE_VECTOR"       /* taken branches per sample, 4..64 */
#define CKS_ENV_STEP_CAP "COVKIT_SAMPLE_STEP_CAP"   /* single steps per sample at most */
/* "block" (default): from branch to branch with the thread's hardware
 * breakpoints (all four debug registers; "block1" to "block3": fewer, for
 * benches and tests); "instruction": single-step every instruction (the
 * reference, for tests and benches). All record the same steps. */
#define CKS_ENV_STEPPING "COVKIT_SAMPLE_STEPPING"
/* Set (any value): at its end each image writes a WARNING record "stepping
 * cost (block|instruction): V vectors, N ns, T traps, M register moves, L
 * counted loops, R returns known" (thread CPU time from each tick to its
 * vector written; the traps taken, the debug-register changes on the way,
 * the loops whose passes a breakpoint counted and the returns passed
 * without a stop), for bench/sample_block_step.sh. */
#define CKS_ENV_STEP_STATS "COVKIT_SAMPLE_STEP_STATS"
#define CKS_ENV_PLAN_SOCKET "COVKIT_SAMPLE_PLAN_SOCKET" /* breakpoint mode: covkit's plan server */

enum {
  CKS_DEFAULT_PERIOD_NS = 80000000, /* 80 ms of thread CPU time: see docs/sample-format.md, Cost */
  CKS_DEFAULT_VECTOR = 16,
  CKS_MIN_VECTOR = 4,
  CKS_MAX_VECTOR = 64,
  CKS_DEFAULT_STEP_CAP = 4096,
  CKS_MAX_STEP_CAP = 65536,
  CKS_MAX_STACK = 128 /* return addresses per sample */
};

/* ---- file names, relative to the recording directory ----
 * Each process image (a process, or what an exec made of it) writes one
 * file IMAGE.cks, IMAGE = "<pid>-<n>" with the smallest n >= 0 whose file
 * does not exist yet (created with O_EXCL). covkit writes recording.json. */
#define CKS_FILE_SUFFIX ".cks"
#define CKS_RECORDING_JSON "recording.json"
/* Breakpoint mode: "<build-id hex>-<path hash>-<sites>.hits" (the hash:
 * 16 hex digits, FNV-1a 64 of the object's path), one byte per planted site
 * of that object (in address order), 1 once hit in any process of the
 * recording; mapped shared by the runtime. And "<same>.text": the pages of
 * the object's executable segment with int3s at the sites not yet hit,
 * mapped shared over the segment by every process (a trap puts the byte
 * back in the file); written as "<same>.text.<pid>.tmp" first. Readers
 * ignore these files. */
#define CKS_HITS_SUFFIX ".hits"
#define CKS_TEXT_SUFFIX ".text"
#define CKS_MAX_SEQUENCE 9999

/* ---- records ----
 * A .cks file is a sequence of records, each written by one write(2) to a
 * file opened O_APPEND, so that threads never interleave. Little endian.
 * Every record starts with a CKS_REC_HEADER-byte header:
 *   u32 magic (CKS_MAGIC), u16 kind, u16 flags, u32 size (whole record,
 *   header included, a multiple of 8), u32 reserved (0). */
#define CKS_MAGIC 0x314b5343u /* "CSK1" */
enum {
  CKS_REC_HEADER = 16,
  CKS_MAX_RECORD = 1 << 20 /* readers refuse larger records */
};
enum {
  CKS_KIND_IMAGE = 1,   /* first record: the process image */
  CKS_KIND_MAPPING = 2, /* one executable file mapping */
  CKS_KIND_SAMPLE = 3,  /* one sample */
  CKS_KIND_WARNING = 4, /* one line of text: what went wrong */
  CKS_KIND_END = 5,     /* the image ended normally (exit) */
  CKS_KIND_HIT = 6,     /* breakpoint mode: a block ran */
  CKS_KIND_PLANTED = 7, /* breakpoint mode: a breakpoint was planted */
  CKS_KIND_BRANCHES = 8, /* taken branches of the SAMPLE record just before (hardware, imports) */
  CKS_KIND_PLANTED_SET = 9 /* breakpoint mode: many planted breakpoints at once */
};

/* IMAGE: then the executable path (/proc/self/exe), NUL-terminated. */
enum {
  CKS_IMAGE_PID = 16,      /* u32 */
  CKS_IMAGE_PPID = 20,     /* u32 */
  CKS_IMAGE_START_NS = 24, /* u64: CLOCK_REALTIME when the image started */
  CKS_IMAGE_FIXED = 32
};

/* MAPPING: then the build-id bytes, then the path, NUL-terminated. */
enum {
  CKS_MAP_START = 16,  /* u64 */
  CKS_MAP_END = 24,    /* u64 (exclusive) */
  CKS_MAP_OFFSET = 32, /* u64: file offset of START */
  CKS_MAP_DEV = 40,    /* u64: st_dev of the file (0: unknown) */
  CKS_MAP_INODE = 48,  /* u64: st_ino of the file (0: unknown) */
  CKS_MAP_BUILD_ID_SIZE = 56, /* u32: bytes of build-id (0..CKS_MAX_BUILD_ID) */
  CKS_MAP_PATH_SIZE = 60,     /* u32: bytes of path, its NUL included */
  CKS_MAP_FIXED = 64,
  CKS_MAX_BUILD_ID = 64
};

/* SAMPLE: then u64 stack[nstack] (return addresses, innermost first), then
 * u64 steps[nsteps] (steps[0] is IP, then every address single-stepped to). */
enum {
  CKS_SAMPLE_TID = 16,    /* u32 */
  CKS_SAMPLE_NSTACK = 20, /* u32 */
  CKS_SAMPLE_NSTEPS = 24, /* u32 */
  CKS_SAMPLE_TAKEN = 28,  /* u32: taken branches (steps that are not the previous instruction plus its
                           * length, nor the same address: docs/sample-format.md) */
  CKS_SAMPLE_IP = 32,     /* u64 */
  CKS_SAMPLE_FIXED = 40
};
/* flags of a SAMPLE record: why stepping stopped */
enum {
  CKS_SAMPLE_STOP_VECTOR = 1,  /* the vector was full */
  CKS_SAMPLE_STOP_CAP = 2,     /* the step cap */
  CKS_SAMPLE_STOP_SYSCALL = 4, /* the next instruction enters the kernel */
  CKS_SAMPLE_STOP_BLOCKED = 8  /* SIGTRAP was blocked or not covkit's: no steps */
};

/* BRANCHES: u64 (from, to) pairs, oldest first, from offset 16 to the
 * record's end; never written by the runtime (its samples have steps).
 * WARNING: the text, NUL-terminated. END: u64 lost samples at offset 16.
 * HIT and PLANTED: u64 address at offset 16. */
enum { CKS_END_LOST = 16, CKS_END_FIXED = 24, CKS_HIT_ADDRESS = 16, CKS_HIT_FIXED = 24 };

/* PLANTED_SET: the addresses of many planted breakpoints, ascending, in
 * ~1.5 bytes each instead of a 24-byte PLANTED record each (a process of a
 * large program plants tens of thousands): u32 count (>= 1) at 16, u32 0,
 * u64 the first address at 24, then count - 1 ULEB128 gaps to the next
 * address (each >= 1), then zero bytes to the record's size. */
enum { CKS_SET_COUNT = 16, CKS_SET_FIRST = 24, CKS_SET_FIXED = 32, CKS_ULEB_MAX = 10 };

/* Writes v as ULEB128 at p (at most CKS_ULEB_MAX bytes); returns the bytes
 * written. Shared by the runtime and covkit's writer. */
static inline unsigned cks_put_uleb128(unsigned char *p, uint64_t v) {
  unsigned n = 0;
  do {
    unsigned char b = (unsigned char)(v & 0x7f);
    v >>= 7;
    p[n++] = (unsigned char)(b | (v ? 0x80 : 0));
  } while (v);
  return n;
}

/* ---- breakpoint mode: the plan, asked of covkit over a unix socket ----
 * In breakpoint mode the runtime plants one-shot int3s itself and handles
 * their SIGTRAP in the process (a few microseconds a block, against ~20 for
 * a ptrace stop). Where to plant is covkit's to say (the CFG analysis): for
 * each loaded object the runtime connects to CKS_ENV_PLAN_SOCKET (a
 * SOCK_STREAM unix socket; one connection may carry several requests) and
 * sends a request:
 *   u32 CKS_PLAN_MAGIC, u32 path size (its NUL included, at most
 *   CKS_PLAN_MAX_PATH), u32 build-id size (bytes, at most CKS_MAX_BUILD_ID),
 *   u32 0, then the path, then the build-id bytes.
 * The answer: u64 count of ELF virtual addresses (as the file names them,
 * before the load bias), ascending; if count > 0, u64 size, u64 the first
 * address, then `size` bytes: count - 1 ULEB128 gaps (each >= 1) to the
 * next address, as in a PLANTED_SET record (~1.5 bytes a site instead of 8:
 * a large program's plan is ~30,000 sites, asked by every process). Or
 * count == CKS_PLAN_REFUSED followed by u32 size and that many bytes of
 * text (why: a WARNING record). A count of 0 leaves the object alone (a
 * system library, say). The runtime writes
 * PLANTED_SET records listing the int3s it planted and one HIT record per
 * int3 that fired, with addresses in the process, as covkit's ptrace
 * recorder does. */
#define CKS_PLAN_MAGIC 0x4e4c504bu /* "KPLN" */
#define CKS_PLAN_REFUSED 0xffffffffffffffffull
enum {
  CKS_PLAN_REQUEST_FIXED = 16,
  CKS_PLAN_MAX_PATH = 4096,
  CKS_PLAN_MAX_SITES = 1 << 24, /* per object: 128 MiB of addresses */
  CKS_PLAN_MAX_TEXT = 1024
};

#endif
