/* covkit's freestanding coverage dumper (gcov_stream.h). Everything here
 * runs inside the firmware: no libc call, no allocation, no static state,
 * no I/O but the user's callback. */
#include "gcov_stream.h"

/* libgcov's (GCC >= 12, <gcov.h>); declared here so that the file needs no
 * header of the compiler's and compiles as freestanding C11 anywhere. */
void __gcov_info_to_gcda(const struct gcov_info *info, void (*filename_fn)(const char *, void *),
                         void (*dump_fn)(const void *, unsigned, void *),
                         void *(*allocate_fn)(unsigned, void *), void *arg);

#define GCFN_MAGIC 0x6763666eu /* "gcfn", as GCC 13's __gcov_filename_to_gcfn */

/* What the callbacks of one object's __gcov_info_to_gcda need. */
struct dump_state {
  struct covkit_gcov_sink *sink;
  unsigned version; /* the object's gcov version word */
};

static void put_word(struct covkit_gcov_sink *sink, unsigned word) {
  sink->write(&word, 4, sink->arg); /* the target's byte order, as libgcov's words */
}

/* The "gcfn" header before each object's data: magic, version, then the
 * name as GCC 12+ writes strings (byte length with the NUL, the bytes). */
static void on_filename(const char *name, void *arg) {
  struct dump_state *state = arg;
  unsigned length = 0;
  if (name)
    while (name[length]) ++length;
  put_word(state->sink, GCFN_MAGIC);
  put_word(state->sink, state->version);
  put_word(state->sink, name ? length + 1 : 0);
  if (name) state->sink->write(name, length + 1, state->sink->arg);
}

static void on_data(const void *data, unsigned length, void *arg) {
  struct dump_state *state = arg;
  state->sink->write(data, length, state->sink->arg);
}

/* Bump allocation from the sink's arena (8-byte aligned); NULL when full. */
static void *on_allocate(unsigned size, void *arg) {
  struct covkit_gcov_sink *sink = ((struct dump_state *)arg)->sink;
  unsigned long start = (sink->arena_used + 7u) & ~7ul;
  if (!sink->arena || start > sink->arena_size || sink->arena_size - start < size) return 0;
  sink->arena_used = start + size;
  return sink->arena + start;
}

void covkit_gcov_dump(const struct gcov_info *const *begin, const struct gcov_info *const *end,
                      struct covkit_gcov_sink *sink) {
  /* The section's bounds come from the linker: keep the compiler from
   * assuming two distinct arrays and dropping the loop. */
  __asm__("" : "+r"(begin));
  for (const struct gcov_info *const *info = begin; info != end; ++info) {
    if (!*info) continue; /* padding a linker may leave between entries */
    struct dump_state state;
    state.sink = sink;
    /* struct gcov_info starts with its version word in every GCC since 4.7:
     * the version the object was compiled for, which the header repeats. */
    state.version = *(const unsigned *)*info;
    __gcov_info_to_gcda(*info, on_filename, on_data, on_allocate, &state);
  }
}

/* ---- hex lines ------------------------------------------------------- */

static const char hex_digits[] = "0123456789abcdef";

static char *put_hex_byte(char *at, unsigned char byte) {
  at[0] = hex_digits[byte >> 4];
  at[1] = hex_digits[byte & 15];
  return at + 2;
}

/* ":gcov:OOOOOOOO:<data>:SS\r\n" for the pending bytes (none: the end line). */
static void emit_line(struct covkit_gcov_hex *hex) {
  char line[6 + 9 + 2 * sizeof hex->pending + 1 + 2 + 2];
  char *at = line;
  const char marker[] = ":gcov:";
  for (unsigned i = 0; i < 6; ++i) *at++ = marker[i];
  unsigned char sum = 0;
  for (int shift = 24; shift >= 0; shift -= 8) {
    unsigned char b = (unsigned char)(hex->offset >> shift);
    at = put_hex_byte(at, b);
    sum = (unsigned char)(sum + b);
  }
  *at++ = ':';
  for (unsigned i = 0; i < hex->fill; ++i) {
    at = put_hex_byte(at, hex->pending[i]);
    sum = (unsigned char)(sum + hex->pending[i]);
  }
  *at++ = ':';
  at = put_hex_byte(at, sum);
  *at++ = '\r';
  *at++ = '\n';
  hex->put(line, (unsigned)(at - line), hex->arg);
  hex->offset += hex->fill;
  hex->fill = 0;
}

void covkit_gcov_hex_start(struct covkit_gcov_hex *hex, covkit_gcov_put_fn put, void *put_arg) {
  hex->put = put;
  hex->arg = put_arg;
  hex->offset = 0;
  hex->fill = 0;
}

void covkit_gcov_hex_write(const void *data, unsigned length, void *hex_state) {
  struct covkit_gcov_hex *hex = hex_state;
  const unsigned char *bytes = data;
  for (unsigned i = 0; i < length; ++i) {
    hex->pending[hex->fill++] = bytes[i];
    if (hex->fill == sizeof hex->pending) emit_line(hex);
  }
}

void covkit_gcov_hex_finish(struct covkit_gcov_hex *hex) {
  if (hex->fill) emit_line(hex);
  emit_line(hex); /* no bytes: the end of the dump */
}

void covkit_gcov_dump_hex(const struct gcov_info *const *begin, const struct gcov_info *const *end,
                          covkit_gcov_put_fn put, void *put_arg) {
  struct covkit_gcov_hex hex;
  covkit_gcov_hex_start(&hex, put, put_arg);
  struct covkit_gcov_sink sink = {covkit_gcov_hex_write, &hex, 0, 0, 0};
  covkit_gcov_dump(begin, end, &sink);
  covkit_gcov_hex_finish(&hex);
}
