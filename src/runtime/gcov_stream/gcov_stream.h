/* covkit's freestanding coverage dumper: walks the gcov information that
 * GCC's -fprofile-info-section puts in a linker section and sends it, one
 * translation unit after the other, through a callback as the stream that
 * `covkit live unpack` (and GCC 13's `gcov-tool merge-stream`) reads back
 * into .gcda files. Optionally as ':gcov:' hex lines for a serial console.
 *
 * C11, no libc, no allocation, no I/O of its own: compile it with
 * -ffreestanding into the firmware (without --coverage) and link libgcov,
 * which provides __gcov_info_to_gcda (GCC 12 and later). See README.md. */
#ifndef COVKIT_GCOV_STREAM_H
#define COVKIT_GCOV_STREAM_H

#ifdef __cplusplus
extern "C" {
#endif

struct gcov_info; /* GCC's, opaque here */

/* Receives the stream: `length` bytes at `data`, in order, never split
 * differently from how libgcov passes them. */
typedef void (*covkit_gcov_write_fn)(const void *data, unsigned length, void *arg);

struct covkit_gcov_sink {
  covkit_gcov_write_fn write;
  void *arg;
  /* Memory for __gcov_info_to_gcda's allocate callback, which only value
   * profiles (-fprofile-generate's top-N counters) need; may be NULL/0
   * for --coverage. Allocations are never freed: give room for one dump. */
  unsigned char *arena;
  unsigned long arena_size;
  unsigned long arena_used;
};

/* Streams every object of [begin, end): the section's bounds, e.g.
 * __gcov_info_start/__gcov_info_end from a linker script, or
 * __start_gcov_info/__stop_gcov_info that GNU ld provides itself for
 * -fprofile-info-section=gcov_info. One call is one dump, which
 * `covkit live unpack` counts as one run of the program. */
void covkit_gcov_dump(const struct gcov_info *const *begin, const struct gcov_info *const *end,
                      struct covkit_gcov_sink *sink);

/* ---- The hex form for serial consoles -------------------------------- */

/* Receives text to print: `length` characters at `text` (no NUL), a line
 * ending with "\r\n". */
typedef void (*covkit_gcov_put_fn)(const char *text, unsigned length, void *arg);

struct covkit_gcov_hex {
  covkit_gcov_put_fn put;
  void *arg;
  unsigned long offset;      /* of the pending bytes in this dump */
  unsigned char pending[32]; /* one line's bytes */
  unsigned fill;
};

/* Streams every object of [begin, end) as one dump of ':gcov:' lines
 * (format: docs/covkit-live-unpack.md), ending with the dump's end line. */
void covkit_gcov_dump_hex(const struct gcov_info *const *begin, const struct gcov_info *const *end,
                          covkit_gcov_put_fn put, void *put_arg);

/* The pieces of covkit_gcov_dump_hex, to send other bytes the same way:
 * start a dump, pass covkit_gcov_hex_write as a sink's write function with
 * the state as its argument, then finish (flushes and writes the end line). */
void covkit_gcov_hex_start(struct covkit_gcov_hex *hex, covkit_gcov_put_fn put, void *put_arg);
void covkit_gcov_hex_write(const void *data, unsigned length, void *hex_state);
void covkit_gcov_hex_finish(struct covkit_gcov_hex *hex);

#ifdef __cplusplus
}
#endif

#endif
