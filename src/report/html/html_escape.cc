#include "report/html/html_escape.h"

#include <array>
#include <cstring>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "util/utf8.h"

namespace covkit::report::html {

namespace {

// The bytes append_escaped must look at: the five it replaces and every
// non-ASCII byte (checked for well-formed UTF-8). One table look-up per
// byte passes over the rest, which is nearly all of a source page's text.
constexpr std::array<bool, 256> escape_attention() {
  std::array<bool, 256> attention{};
  for (int c = 0x80; c < 256; ++c) attention[size_t(c)] = true;
  for (char c : {'&', '<', '>', '"', '\''}) attention[static_cast<unsigned char>(c)] = true;
  return attention;
}
constexpr std::array<bool, 256> kAttention = escape_attention();

// The first byte from `i` on that needs attention, or text.size(). Sixteen
// bytes at a time where SSE2 is (every x86-64): comments and long runs of
// code are most of a page's text, and a look-up per byte was 2% of a zstd
// report.
size_t next_attention(std::string_view text, size_t i) {
  const size_t n = text.size();
#if defined(__SSE2__)
  const __m128i amp = _mm_set1_epi8('&'), lt = _mm_set1_epi8('<'), gt = _mm_set1_epi8('>'),
                quot = _mm_set1_epi8('"'), apos = _mm_set1_epi8('\'');
  for (; i + 16 <= n; i += 16) {
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(text.data() + i));
    const __m128i marked = _mm_or_si128(
        _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, amp), _mm_cmpeq_epi8(v, lt)), _mm_cmpeq_epi8(v, gt)),
        _mm_or_si128(_mm_cmpeq_epi8(v, quot), _mm_cmpeq_epi8(v, apos)));
    // A byte's top bit: marked, or one of 0x80-0xff (UTF-8).
    const int mask = _mm_movemask_epi8(_mm_or_si128(marked, v));
    if (mask != 0) return i + size_t(__builtin_ctz(unsigned(mask)));
  }
#endif
  while (i < n && !kAttention[static_cast<unsigned char>(text[i])]) ++i;
  return i;
}

// What replaces text[i], a byte kAttention marks: an entity, U+FFFD for a
// byte that starts no well-formed UTF-8 sequence (the pages say
// charset=utf-8; a Latin-1 source shows as browsers show it), or nothing
// for a well-formed sequence, whose length less one is then added to `i`.
std::string_view replacement(std::string_view text, size_t& i) {
  switch (text[i]) {
    case '&':
      return "&amp;";
    case '<':
      return "&lt;";
    case '>':
      return "&gt;";
    case '"':
      return "&quot;";
    case '\'':
      return "&#39;";
    default: {
      const size_t len = util::utf8_length(text, i);
      if (len > 0) {
        i += len - 1;
        return {};
      }
      return util::kReplacement;
    }
  }
}

// Hands `emit` the text in pieces: runs of harmless bytes whole (source
// pages are mostly such runs), each entity or U+FFFD in between.
template <typename Emit>
void escaped_pieces(std::string_view text, Emit&& emit) {
  size_t start = 0;
  const size_t n = text.size();
  for (size_t i = 0; (i = next_attention(text, i)) < n; ++i) {
    const size_t at = i;
    const std::string_view entity = replacement(text, i);
    if (entity.data() == nullptr) continue;
    emit(text.substr(start, at - start));
    emit(entity);
    start = at + 1;
  }
  if (n > start) emit(text.substr(start));
}

}  // namespace

void append_escaped(std::string& out, std::string_view text) {
  escaped_pieces(text, [&out](std::string_view piece) { out.append(piece); });
}

char* write_escaped(char* out, std::string_view text) {
  escaped_pieces(text, [&out](std::string_view piece) {
    std::memcpy(out, piece.data(), piece.size());
    out += piece.size();
  });
  return out;
}

std::string escape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  append_escaped(out, text);
  return out;
}

}  // namespace covkit::report::html
