/* The contract between libcovkit-trace (which writes a trace directory),
 * covkit's reader (src/format/trace_*) and `covkit trace record` (which sets
 * the runtime's environment): variable names, file names, the thread stream
 * header and the event codes. docs/trace-format.md is its prose.
 * C11 and C++, no dependencies: constants and one plain memory layout. */
#ifndef COVKIT_TRACE_CONTRACT_H
#define COVKIT_TRACE_CONTRACT_H

/* ---- environment of the traced program ---- */
#define CKT_ENV_DIR "COVKIT_TRACE_DIR"                 /* required: without it the runtime is inert */
#define CKT_ENV_MAX_DEPTH "COVKIT_TRACE_MAX_DEPTH"     /* frames written at most (main alone is 1) */
#define CKT_ENV_MIN_TIME_NS "COVKIT_TRACE_MIN_TIME_NS" /* leaf calls shorter than this are not written */
#define CKT_ENV_CHUNK_KB "COVKIT_TRACE_CHUNK_KB"       /* tests: file growth step */
#define CKT_ENV_CLOCK "COVKIT_TRACE_CLOCK"             /* "tsc" or "mono" forces that clock; else chosen */
#define CKT_ENV_FILTERS "COVKIT_TRACE_FILTERS"         /* file of function ranges and what to do with them */
#define CKT_ENV_SIGNAL "COVKIT_TRACE_SIGNAL"           /* signal number that switches tracing on and off */
#define CKT_ENV_START "COVKIT_TRACE_START"             /* "off": tracing starts switched off */
#define CKT_ENV_PATCH "COVKIT_TRACE_PATCH"             /* file of patchable entries to patch at load */
#define CKT_ENV_PATCH_LATER "COVKIT_TRACE_PATCH_LATER" /* "1": prepare them, patch when attached */
#define CKT_ENV_LIBCALL "COVKIT_TRACE_LIBCALL"         /* "1": record calls through the PLT (plt_hooks.h) */
#define CKT_ENV_PREFIX "COVKIT_TRACE_"                 /* every variable above starts so */

/* ---- filters (CKT_ENV_FILTERS, written by `covkit trace record -F/-N/-T`) ----
 * Text. The first line is CKT_FILTERS_MAGIC; then one line per function:
 *   <actions> <lo> <hi> <module path>
 * actions: one or more of the CKT_FILTER_* letters; lo, hi: lower-case hex
 * addresses [lo, hi) relative to the module's load address (its ELF virtual
 * addresses for a PIE or shared library); the path as the dynamic loader
 * names the module (the executable's: its canonical path). Lines sorted by
 * path, then lo. Then one line per pattern, for libraries loaded later
 * (dlopen), whose functions covkit could not list before the run:
 *   ?<actions> =<name>     functions whose symbol is <name>
 *   ?<actions> ~<regex>    functions whose symbol matches <regex> (POSIX
 *                          extended, unanchored)
 * The runtime matches them against a module's symbol table (.symtab, else
 * .dynsym) the first time one of its functions is called. */
#define CKT_FILTERS_MAGIC "covkit-filters 2"
#define CKT_FILTER_FILE "covkit-filters" /* its name in the trace directory */
#define CKT_FILTER_ONLY 'F'    /* record only these calls and what they call */
#define CKT_FILTER_NOTRACE 'N' /* record neither these calls nor what they call */
#define CKT_FILTER_ON '+'      /* entering one switches tracing on */
#define CKT_FILTER_OFF '-'     /* entering one switches tracing off */
/* ---- patchable entries (CKT_ENV_PATCH, written by `covkit trace record --patch`) ----
 * Text. The first line is CKT_PATCH_MAGIC; then one line per function:
 *   <site> <module path>
 * site: lower-case hex address, relative to the module's load address, of
 * the function's entry where -fpatchable-function-entry left at least 5
 * bytes of NOPs (after an endbr64, if any). At load, the runtime writes a
 * 5-byte call there (to a trampoline near the module that jumps to
 * ckt_patch_entry, which works as __fentry__). Module paths as for filters.
 * Then one line per --patch pattern, for libraries loaded later (dlopen),
 * whose functions covkit could not list before the run:
 *   ?=<name>      a function whose symbol is <name>
 *   ?~<regex>     a function whose symbol matches <regex> (POSIX extended,
 *                 unanchored)
 * The runtime matches them against each new module's symbol table (.symtab,
 * else .dynsym) when the dynamic linker has added it. */
#define CKT_PATCH_MAGIC "covkit-patch 2"
#define CKT_PATCH_FILE "covkit-patch" /* its name in the trace directory */
#define CKT_PATCH_LATER_PATTERN '?'
#define CKT_PATCH_EXACT '='
#define CKT_PATCH_REGEX '~'
/* The entries, as the runtime prepared them, in its memory for `covkit trace
 * attach`, which patches and unpatches a running process (stopped with
 * ptrace: a thread inside GCC's one-byte NOPs must be moved past them).
 * libcovkit-trace exports `CKT_PATCH_TABLE_SYMBOL`, a struct ckt_patch_table;
 * `ready` is set once the start-up modules' entries are in; `count` grows
 * as libraries are loaded. For each site, the 5 bytes at `at` (absolute) are
 * `off` (the NOPs) or `on` (the call). With CKT_ENV_PATCH_LATER the runtime
 * leaves them `off` at load, and later ones as `on` says: attach sets it to
 * 1 when it patches, to 0 when it unpatches. */
#define CKT_PATCH_TABLE_SYMBOL "ckt_patch_table"
#define CKT_PATCH_TABLE_MAGIC 0x32686374616b63ull /* "ckatch2" little-endian, version 2 */
struct ckt_patch_table {
  unsigned long long magic;
  unsigned long long ready;
  unsigned long long count;
  unsigned long long sites; /* address of struct ckt_patch_site[count] */
  unsigned long long on;    /* the entries are patched (CKT_ENV_PATCH_LATER) */
};
struct ckt_patch_site {
  unsigned long long at;
  unsigned char on[5], off[5], pad[6];
};
/* CKT_ENV_SIGNAL from sigqueue(): the value says what to do; any other
 * sender (kill) toggles. */
enum { CKT_SIGNAL_VALUE_ON = 1, CKT_SIGNAL_VALUE_OFF = 2 };

/* ---- file names, relative to the trace directory ----
 * A process image is named IMAGE = "<pid>" or, when a file of that name
 * exists already (the same pid after exec, or reused), "<pid>.<n>" with the
 * smallest free n >= 1. Its files:
 *   IMAGE.meta                 process metadata (text)
 *   IMAGE-<tid>.ckt            one thread's event stream
 *   IMAGE-<tid>.<k>.ckt        the same tid again in that image (k >= 1)
 * Files are created with O_EXCL: the runtime never opens, truncates or
 * follows a file it did not create. */
#define CKT_META_SUFFIX ".meta"
#define CKT_STREAM_SUFFIX ".ckt"
#define CKT_SEQUENCE_SEPARATOR '.' /* "<pid>.<n>", "<tid>.<k>" */
#define CKT_THREAD_SEPARATOR '-'   /* IMAGE "-" tid */
#define CKT_MAX_SEQUENCE 9999      /* names tried per image or thread */

/* Written by `covkit trace record` into the directories it creates (the
 * runtime ignores it): marks a directory as a recording covkit may move
 * aside, and is locked (flock) while the recording runs. */
#define CKT_RECORD_MARKER "covkit-record"

/* ---- thread stream header (little endian, CKT_HEADER_SIZE bytes) ---- */
#define CKT_MAGIC "CKTRACE2" /* 8 bytes, no terminating zero in the file */
/* The previous version: no `sync` events, CKT_HDR_CHUNK zero. Readers read
 * both; the runtime writes CKT_MAGIC. */
#define CKT_MAGIC_V1 "CKTRACE1"
enum {
  CKT_HEADER_SIZE = 64,
  CKT_HDR_MAGIC = 0,  /* 8 bytes */
  CKT_HDR_PID = 8,    /* u32 */
  CKT_HDR_TID = 12,   /* u32 */
  CKT_HDR_START = 16, /* u64: counter before the first event */
  CKT_HDR_FLAGS = 24, /* u32: CKT_FLAG_* */
  CKT_HDR_CHUNK = 28, /* u32: bytes per chunk: a `sync` follows the event that
                         crosses each multiple of it (0: unknown) */
  CKT_HDR_CALLS = 32, /* u64: enter events written (valid with CKT_FLAG_COUNTS) */
  CKT_HDR_EVENTS = 40, /* u64: events written, specials included (likewise) */
  CKT_HDR_LOST = 48    /* u64: the sum of the stream's `lost` counts (likewise) */
};
enum {
  CKT_FLAG_ENDED = 1, /* the thread finished normally (set last) */
  CKT_FLAG_COUNTS = 2 /* CKT_HDR_CALLS and CKT_HDR_EVENTS are filled in */
};

/* ---- events ---- */
enum { CKT_KIND_ENTER = 1, CKT_KIND_EXIT = 2, CKT_KIND_SPECIAL = 3 };
enum { CKT_SPECIAL_DEFINE = 1, CKT_SPECIAL_LOST = 2, CKT_SPECIAL_STACK = 3, CKT_SPECIAL_END = 4,
       CKT_SPECIAL_SYNC = 5 /* restart point: varint counter, varint own file offset */ };

#endif
