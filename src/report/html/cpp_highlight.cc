#include "report/html/cpp_highlight.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdint>
#include <cstring>
#include <vector>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#if defined(__x86_64__)
#include <cpuid.h>
#include <immintrin.h>
#endif

#include "report/html/html_escape.h"
#include "report/html/html_out.h"

namespace covkit::report::html {

using namespace std::string_view_literals;

bool cpp_highlight_narrow_for_testing = false;

namespace {

// C11 and C++20 keywords, with the contextual `final` and `override`; sorted
// for binary search.
// clang-format off
constexpr std::string_view kKeywords[] = {
    "_Alignas", "_Alignof", "_Atomic", "_Bool", "_Complex", "_Generic", "_Imaginary", "_Noreturn",
    "_Static_assert", "_Thread_local", "alignas", "alignof", "and", "and_eq", "asm", "auto", "bitand",
    "bitor", "bool", "break", "case", "catch", "char", "char16_t", "char32_t", "char8_t", "class", "co_await",
    "co_return", "co_yield", "compl", "concept", "const", "const_cast", "consteval", "constexpr", "constinit",
    "continue", "decltype", "default", "delete", "do", "double", "dynamic_cast", "else", "enum", "explicit",
    "export", "extern", "false", "final", "float", "for", "friend", "goto", "if", "inline", "int", "long",
    "mutable", "namespace", "new", "noexcept", "not", "not_eq", "nullptr", "operator", "or", "or_eq",
    "override", "private", "protected", "public", "register", "reinterpret_cast", "requires", "restrict",
    "return", "short", "signed", "sizeof", "static", "static_assert", "static_cast", "struct", "switch",
    "template", "this", "thread_local", "throw", "true", "try", "typedef", "typeid", "typename", "union",
    "unsigned", "using", "virtual", "void", "volatile", "wchar_t", "while", "xor", "xor_eq",
};
// clang-format on

static_assert(std::is_sorted(std::begin(kKeywords), std::end(kKeywords)));

// Per first byte, a bit for each length (up to 31) some keyword of that
// first byte has: most identifiers (ZSTD_getFrame, i, buf) are told apart
// from every keyword by it, without a binary search of string compares.
constexpr std::array<uint32_t, 256> keyword_shapes() {
  std::array<uint32_t, 256> shapes{};
  for (std::string_view k : kKeywords) shapes[static_cast<unsigned char>(k[0])] |= uint32_t(1) << k.size();
  return shapes;
}
constexpr std::array<uint32_t, 256> kKeywordShapes = keyword_shapes();

// Per first byte, where its keywords start in kKeywords (sorted, so they are
// together) and end: a word of the right shape is compared with those few
// only (a binary search of the whole list was 1% of a zstd report).
struct KeywordRange {
  uint8_t begin = 0, end = 0;
};
constexpr std::array<KeywordRange, 256> keyword_ranges() {
  std::array<KeywordRange, 256> ranges{};
  for (size_t i = 0; i < std::size(kKeywords); ++i) {
    KeywordRange& r = ranges[static_cast<unsigned char>(kKeywords[i][0])];
    if (r.end == 0) r.begin = uint8_t(i);
    r.end = uint8_t(i + 1);
  }
  return ranges;
}
constexpr std::array<KeywordRange, 256> kKeywordRanges = keyword_ranges();
static_assert(std::size(kKeywords) < 256);

bool is_keyword(std::string_view word) {
  const auto first = static_cast<unsigned char>(word[0]);
  if (word.size() >= 32 || !(kKeywordShapes[first] >> word.size() & 1)) return false;
  const KeywordRange r = kKeywordRanges[first];
  for (size_t i = r.begin; i < r.end; ++i)
    if (kKeywords[i] == word) return true;
  return false;
}

constexpr bool is_digit(char c) { return c >= '0' && c <= '9'; }
// ASCII tests, as <cctype>'s in the "C" locale covkit runs in, without a
// call per byte (the highlighter sees every byte of every source page).
constexpr bool is_letter(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
bool is_alnum(char c) { return is_letter(c) || is_digit(c); }
// Bytes of UTF-8 sequences (and GCC's '$') may appear in identifiers.
constexpr bool starts_identifier(char c) {
  return is_letter(c) || c == '_' || c == '$' || static_cast<unsigned char>(c) >= 0x80;
}
bool continues_identifier(char c) { return starts_identifier(c) || is_digit(c); }

constexpr bool is_blank(char c) { return c == ' ' || c == '\t' || c == '\f' || c == '\v'; }


// The masks classify() makes, one bit a byte (see cpp_highlight.h).
enum MaskKind : uint8_t { kWordBit = 1, kEventBit = 2, kEscapeBit = 4, kBlankBit = 8 };
constexpr uint8_t mask_kinds(unsigned char c) {
  const char ch = static_cast<char>(c);
  uint8_t k = 0;
  if (starts_identifier(ch) || is_digit(ch)) k |= kWordBit | kEventBit;
  if (ch == '/' || ch == '.' || ch == '"' || ch == '\'') k |= kEventBit;
  if (ch == '&' || ch == '<' || ch == '>' || c >= 0x80) k |= kEscapeBit;
  if (is_blank(ch)) k |= kBlankBit;
  return k;
}

struct MaskWords {
  uint64_t word = 0, event = 0, escape = 0, blank = 0;
};

#if defined(__SSE2__)
// Bytes of `v` in [lo, lo + len): shifted so that lo is -128, then one
// signed compare (SSE2 has no unsigned one).
inline __m128i bytes_in_range(__m128i v, char lo, int len) {
  const __m128i shifted = _mm_add_epi8(v, _mm_set1_epi8(static_cast<char>(0x80 - static_cast<unsigned char>(lo))));
  return _mm_cmplt_epi8(shifted, _mm_set1_epi8(static_cast<char>(-128 + len)));
}
inline __m128i bytes_equal(__m128i v, char c) { return _mm_cmpeq_epi8(v, _mm_set1_epi8(c)); }

// The masks of the 16 bytes at `p`, into bits [shift, shift + 16).
inline void classify16(const char* p, unsigned shift, MaskWords& m) {
  const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
  const __m128i letter = bytes_in_range(_mm_or_si128(v, _mm_set1_epi8(0x20)), 'a', 26);
  const __m128i digit = bytes_in_range(v, '0', 10);
  // A byte's top bit: the byte is >= 0x80, or a compare matched it.
  const __m128i word =
      _mm_or_si128(_mm_or_si128(letter, digit), _mm_or_si128(bytes_equal(v, '_'), _mm_or_si128(bytes_equal(v, '$'), v)));
  const __m128i event = _mm_or_si128(
      word, _mm_or_si128(_mm_or_si128(bytes_equal(v, '/'), bytes_equal(v, '.')),
                         _mm_or_si128(bytes_equal(v, '"'), bytes_equal(v, '\''))));
  const __m128i escape =
      _mm_or_si128(_mm_or_si128(bytes_equal(v, '&'), bytes_equal(v, '<')), _mm_or_si128(bytes_equal(v, '>'), v));
  const __m128i blank = _mm_or_si128(_mm_or_si128(bytes_equal(v, ' '), bytes_equal(v, '\t')),
                                     _mm_or_si128(bytes_equal(v, '\f'), bytes_equal(v, '\v')));
  m.word |= uint64_t(unsigned(_mm_movemask_epi8(word))) << shift;
  m.event |= uint64_t(unsigned(_mm_movemask_epi8(event))) << shift;
  m.escape |= uint64_t(unsigned(_mm_movemask_epi8(escape))) << shift;
  m.blank |= uint64_t(unsigned(_mm_movemask_epi8(blank))) << shift;
}

#if defined(__x86_64__)
// The same with AVX2 where the CPU has it, 32 bytes a step: classify16's
// compares were a fifth of the highlighter's instructions.
[[gnu::target("avx2"), gnu::always_inline]] inline __m256i bytes_in_range32(__m256i v, char lo, int len) {
  const __m256i shifted =
      _mm256_add_epi8(v, _mm256_set1_epi8(static_cast<char>(0x80 - static_cast<unsigned char>(lo))));
  return _mm256_cmpgt_epi8(_mm256_set1_epi8(static_cast<char>(-128 + len)), shifted);
}
[[gnu::target("avx2"), gnu::always_inline]] inline __m256i bytes_equal32(__m256i v, char c) {
  return _mm256_cmpeq_epi8(v, _mm256_set1_epi8(c));
}
[[gnu::target("avx2"), gnu::always_inline]] inline void classify32(const char* p, unsigned shift, MaskWords& m) {
  const __m256i v = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
  const __m256i letter = bytes_in_range32(_mm256_or_si256(v, _mm256_set1_epi8(0x20)), 'a', 26);
  const __m256i digit = bytes_in_range32(v, '0', 10);
  const __m256i word = _mm256_or_si256(_mm256_or_si256(letter, digit),
                                       _mm256_or_si256(bytes_equal32(v, '_'), _mm256_or_si256(bytes_equal32(v, '$'), v)));
  const __m256i event = _mm256_or_si256(
      word, _mm256_or_si256(_mm256_or_si256(bytes_equal32(v, '/'), bytes_equal32(v, '.')),
                            _mm256_or_si256(bytes_equal32(v, '"'), bytes_equal32(v, '\''))));
  const __m256i escape = _mm256_or_si256(_mm256_or_si256(bytes_equal32(v, '&'), bytes_equal32(v, '<')),
                                         _mm256_or_si256(bytes_equal32(v, '>'), v));
  const __m256i blank = _mm256_or_si256(_mm256_or_si256(bytes_equal32(v, ' '), bytes_equal32(v, '\t')),
                                        _mm256_or_si256(bytes_equal32(v, '\f'), bytes_equal32(v, '\v')));
  m.word |= uint64_t(unsigned(_mm256_movemask_epi8(word))) << shift;
  m.event |= uint64_t(unsigned(_mm256_movemask_epi8(event))) << shift;
  m.escape |= uint64_t(unsigned(_mm256_movemask_epi8(escape))) << shift;
  m.blank |= uint64_t(unsigned(_mm256_movemask_epi8(blank))) << shift;
}
// Words [0, words) of text `s`, each 64 bytes all within it.
[[gnu::target("avx2")]] void classify_full_words_avx2(const char* s, size_t words, uint64_t* word, uint64_t* event,
                                                      uint64_t* escape, uint64_t* blank) {
  for (size_t w = 0; w < words; ++w) {
    MaskWords m;
    classify32(s + 64 * w, 0, m);
    classify32(s + 64 * w + 32, 32, m);
    word[w] = m.word;
    event[w] = m.event;
    escape[w] = m.escape;
    blank[w] = m.blank;
  }
}
// Asked with cpuid at the first highlighted text, not with
// __builtin_cpu_supports: that links libgcc's __cpu_indicator_init, a
// constructor that runs a dozen cpuid instructions before main() in every
// command, and cpuid traps to the hypervisor on a VM (~6 us each: start-up,
// bench/README.md). AVX2 needs the CPU's flag (leaf 7, EBX bit 5) and the
// system's saving of the YMM state (OSXSAVE, then XCR0's SSE and AVX bits).
bool cpu_has_avx2() {
  unsigned a, b, c, d;
  if (!__get_cpuid(1, &a, &b, &c, &d)) return false;
  const unsigned kOsxsave = 1u << 27, kAvx = 1u << 28;
  if ((c & (kOsxsave | kAvx)) != (kOsxsave | kAvx)) return false;
  unsigned xcr0_lo, xcr0_hi;
  __asm__("xgetbv" : "=a"(xcr0_lo), "=d"(xcr0_hi) : "c"(0));
  if ((xcr0_lo & 0x6) != 0x6) return false;  // XMM and YMM state
  if (!__get_cpuid_count(7, 0, &a, &b, &c, &d)) return false;
  return b & (1u << 5);
}
bool have_avx2() {
  static const bool avx2 = cpu_has_avx2();
  return avx2 && !cpp_highlight_narrow_for_testing;
}
#endif
#else
constexpr std::array<uint8_t, 256> mask_kind_table() {
  std::array<uint8_t, 256> t{};
  for (int c = 0; c < 256; ++c) t[size_t(c)] = mask_kinds(static_cast<unsigned char>(c));
  return t;
}
constexpr std::array<uint8_t, 256> kMaskKinds = mask_kind_table();
#endif

// The first position in [from, n) whose bit is set (`set`) or clear in
// `masks`, or n. Bits past n are clear.
template <bool set>
size_t next_bit(const std::vector<uint64_t>& masks, size_t from, size_t n) {
  if (from >= n) return n;
  size_t w = from >> 6;
  uint64_t bits = (set ? masks[w] : ~masks[w]) & (~uint64_t(0) << (from & 63));
  while (bits == 0) {
    if (++w >= masks.size()) return n;
    bits = set ? masks[w] : ~masks[w];
  }
  const size_t at = (w << 6) + size_t(__builtin_ctzll(bits));
  return at < n ? at : n;
}

// Whether some bit in [from, to) is set.
bool some_bit(const std::vector<uint64_t>& masks, size_t from, size_t to) {
  if (from >= to) return false;
  size_t w = from >> 6;
  const size_t last = (to - 1) >> 6;
  uint64_t bits = masks[w] & (~uint64_t(0) << (from & 63));
  for (; w < last; bits = masks[++w])
    if (bits != 0) return true;
  const unsigned end = unsigned((to - 1) & 63);
  return (bits & (end == 63 ? ~uint64_t(0) : (uint64_t(2) << end) - 1)) != 0;
}


// The end of a literal whose opening quote is before `i`: just after the
// closing quote, or the line's end (then `closed` is false).
size_t end_of_quoted(std::string_view line, size_t i, char quote, bool& closed) {
  for (; i < line.size(); ++i) {
    if (line[i] == '\\') {
      ++i;
    } else if (line[i] == quote) {
      closed = true;
      return i + 1;
    }
  }
  closed = false;
  return line.size();
}

// A pp-number from `i` (a digit, or '.' before one): digits, letters, '_',
// '.', exponent signs and digit separators, as the preprocessor reads them.
size_t end_of_number(std::string_view line, size_t i) {
  for (++i; i < line.size();) {
    char c = line[i];
    if ((c == 'e' || c == 'E' || c == 'p' || c == 'P') && i + 1 < line.size() &&
        (line[i + 1] == '+' || line[i + 1] == '-'))
      i += 2;
    else if (is_alnum(c) || c == '_' || c == '.')
      ++i;
    else if (c == '\'' && i + 1 < line.size() && is_alnum(line[i + 1]))
      i += 2;
    else
      break;
  }
  return i;
}

}  // namespace

bool is_c_family_source(std::string_view path) {
  std::string_view name = path.substr(path.rfind('/') + 1);
  size_t dot = name.rfind('.');
  if (dot == std::string_view::npos || dot == 0) return true;
  std::string ext(name.substr(dot + 1));
  for (char& c : ext) c = char(std::tolower(static_cast<unsigned char>(c)));
  static constexpr std::string_view kExtensions[] = {"c",   "h",   "cc",  "cp",  "cpp", "cxx", "c++", "hpp", "hh",
                                                     "hxx", "h++", "inl", "ipp", "tcc", "tpp", "ixx", "cppm"};
  return std::find(std::begin(kExtensions), std::end(kExtensions), ext) != std::end(kExtensions);
}

void CppHighlighter::append_line(std::string& page, std::string_view line) {
  HtmlOut out;
  begin_text(line);
  write_line(out, line);
  page.append(out.text());
}

void CppHighlighter::begin_text(std::string_view line) {
  text_ = line;
  const size_t n = line.size();
  const size_t words = (n + 63) / 64;
  word_.resize(words);
  event_.resize(words);
  escape_.resize(words);
  blank_.resize(words);
  const char* const s = line.data();
  size_t w = 0;
#if defined(__x86_64__)
  if (have_avx2()) {
    w = n / 64;
    classify_full_words_avx2(s, w, word_.data(), event_.data(), escape_.data(), blank_.data());
  }
#endif
  for (; w < words; ++w) {
    MaskWords m;
    const size_t base = w * 64;
#if defined(__SSE2__)
    for (unsigned k = 0; k < 64 && base + k < n; k += 16) {
      if (base + k + 16 <= n) {
        classify16(s + base + k, k, m);
      } else {  // the line's last bytes; the zeros after them are in no mask
        char tail[16] = {};
        std::memcpy(tail, s + base + k, n - base - k);
        classify16(tail, k, m);
      }
    }
#else
    for (size_t k = 0; k < 64 && base + k < n; ++k) {
      const uint8_t kinds = kMaskKinds[static_cast<unsigned char>(s[base + k])];
      const uint64_t bit = uint64_t(1) << k;
      if (kinds & kWordBit) m.word |= bit;
      if (kinds & kEventBit) m.event |= bit;
      if (kinds & kEscapeBit) m.escape |= bit;
      if (kinds & kBlankBit) m.blank |= bit;
    }
#endif
    word_[w] = m.word;
    event_[w] = m.event;
    escape_[w] = m.escape;
    blank_[w] = m.blank;
  }
}

void CppHighlighter::write_line(HtmlOut& out, std::string_view line) {
  line_ = size_t(line.data() - text_.data());
  const bool after_continuation = continued_;
  continued_ = !line.empty() && line.back() == '\\';
  size_t i = 0;
  switch (state_) {
    case State::kCode:
      break;
    case State::kBlockComment:
      i = block_comment(out, line, 0, 0);
      break;
    case State::kLineComment:
      out.need(HtmlOut::kSpanMarkup + kMaxEscapedPerByte * line.size());
      out.put_span('c', line);
      if (!continued_) state_ = State::kCode;
      return;
    case State::kString:
      i = quoted(out, line, 0);
      break;
    case State::kRawString:
      i = raw_string(out, line, 0);
      break;
  }
  if (state_ != State::kCode) return;
  // A directive's '#' comes first on a line of its own (in a continued
  // #define, a leading '#' is the stringizing operator).
  size_t plain = i;  // code() writes the blanks looked at here as they are
  if (i == 0 && !after_continuation) {
    const size_t j = next_bit<false>(blank_, line_, line_ + line.size()) - line_;
    if (j < line.size() && line[j] == '#') {
      out.need(j);
      out.put(line.substr(0, j));
      plain = i = directive(out, line, j);
    } else {
      i = j;
    }
  }
  if (state_ == State::kCode) code(out, line, plain, i);
}

size_t CppHighlighter::block_comment(HtmlOut& out, std::string_view line, size_t i, size_t search_from) {
  const size_t close = line.find("*/", search_from);
  const size_t end = close == std::string_view::npos ? line.size() : close + 2;
  out.need(HtmlOut::kSpanMarkup + kMaxEscapedPerByte * (end - i));
  out.put_span('c', line.substr(i, end - i));
  state_ = close == std::string_view::npos ? State::kBlockComment : State::kCode;
  return end;
}

// A string or character literal continued from the previous line.
size_t CppHighlighter::quoted(HtmlOut& out, std::string_view line, size_t i) {
  bool closed = false;
  size_t end = end_of_quoted(line, i, quote_, closed);
  out.need(HtmlOut::kSpanMarkup + kMaxEscapedPerByte * (end - i));
  out.put_span('s', line.substr(i, end - i));
  state_ = closed || !continued_ ? State::kCode : State::kString;
  return end;
}

size_t CppHighlighter::raw_string(HtmlOut& out, std::string_view line, size_t i) {
  size_t end = line.find(raw_end_, i);
  if (end == std::string_view::npos) {
    out.need(HtmlOut::kSpanMarkup + kMaxEscapedPerByte * (line.size() - i));
    out.put_span('s', line.substr(i));
    state_ = State::kRawString;
    return line.size();
  }
  end += raw_end_.size();
  out.need(HtmlOut::kSpanMarkup + kMaxEscapedPerByte * (end - i));
  out.put_span('s', line.substr(i, end - i));
  state_ = State::kCode;
  return end;
}

size_t CppHighlighter::directive(HtmlOut& out, std::string_view line, size_t i) {
  size_t j = i + 1;
  while (j < line.size() && is_blank(line[j])) ++j;
  size_t name = j;
  while (j < line.size() && continues_identifier(line[j])) ++j;
  out.need(HtmlOut::kSpanMarkup + kMaxEscapedPerByte * (j - i));
  out.put_span('p', line.substr(i, j - i));
  std::string_view word = line.substr(name, j - name);
  if (word != "include" && word != "include_next" && word != "import") return j;
  size_t k = j;
  while (k < line.size() && is_blank(line[k])) ++k;
  if (k < line.size() && line[k] == '<') {
    size_t gt = line.find('>', k);
    if (gt != std::string_view::npos) {
      out.need(HtmlOut::kSpanMarkup + kMaxEscapedPerByte * (gt + 1 - j));
      out.put(line.substr(j, k - j));
      out.put_span('s', line.substr(k, gt + 1 - k));
      return gt + 1;
    }
  }
  return j;
}

// A literal from `start` (its prefix, if any) with its opening quote at
// `quote`; `raw` for R"delim(...)delim" (which falls back to an ordinary
// string when the delimiter is not one: over 16 characters, or with a space,
// backslash or parenthesis).
size_t CppHighlighter::literal(HtmlOut& out, std::string_view line, size_t start, size_t quote, bool raw) {
  if (raw) {
    size_t open = quote + 1;
    while (open < line.size() && open - quote <= 17 && line[open] != '(' && line[open] != ')' && line[open] != '\\' &&
           line[open] != '"' && !is_blank(line[open]))
      ++open;
    if (open < line.size() && line[open] == '(' && open - quote <= 17) {
      raw_end_ = ")" + std::string(line.substr(quote + 1, open - quote - 1)) + "\"";
      size_t end = line.find(raw_end_, open + 1);
      if (end == std::string_view::npos) {
        out.need(HtmlOut::kSpanMarkup + kMaxEscapedPerByte * (line.size() - start));
        out.put_span('s', line.substr(start));
        state_ = State::kRawString;
        return line.size();
      }
      end += raw_end_.size();
      out.need(HtmlOut::kSpanMarkup + kMaxEscapedPerByte * (end - start));
      out.put_span('s', line.substr(start, end - start));
      return end;
    }
  }
  quote_ = line[quote];
  bool closed = false;
  size_t end = end_of_quoted(line, quote + 1, quote_, closed);
  out.need(HtmlOut::kSpanMarkup + kMaxEscapedPerByte * (end - start));
  out.put_span('s', line.substr(start, end - start));
  if (!closed && continued_) state_ = State::kString;
  return end;
}

// The tokens from `i` on: each found from the masks (classify()), the plain
// text between them written as one run, escaped only when the masks say it
// has a byte to escape.
size_t CppHighlighter::code(HtmlOut& out, std::string_view line, size_t plain, size_t i) {
  const char* const s = line.data();
  const size_t n = line.size();
  auto flush = [&](size_t to) {
    if (to == plain) return;
    const std::string_view run(s + plain, to - plain);
    out.need(kMaxEscapedPerByte * run.size());
    if (some_bit(escape_, line_ + plain, line_ + to))
      out.put_escaped(run);
    else
      out.put(run);
    plain = to;
  };
  while ((i = next_bit<true>(event_, line_ + i, line_ + n) - line_) < n) {
    const char c = s[i];
    const char next = i + 1 < n ? s[i + 1] : '\0';
    if (is_digit(c) || (c == '.' && is_digit(next))) {
      flush(i);
      const size_t end = end_of_number(line, i);
      out.need(HtmlOut::kSpanMarkup + kMaxEscapedPerByte * (end - i));
      out.put_span('n', std::string_view(s + i, end - i));
      i = plain = end;
      continue;
    }
    if (starts_identifier(c)) {
      const size_t j = next_bit<false>(word_, line_ + i + 1, line_ + n) - line_;
      const std::string_view word(s + i, j - i);
      const char after = j < n ? s[j] : '\0';
      // An encoding prefix only where a quote follows (rare): the words
      // are compared then, not for every identifier.
      if (after == '"' || after == '\'') {
        const bool prefix = word == "u8" || word == "u" || word == "U" || word == "L";
        const bool raw_prefix =
            after == '"' && (word == "R" || word == "u8R" || word == "uR" || word == "UR" || word == "LR");
        if (prefix || raw_prefix) {
          flush(i);
          i = plain = literal(out, line, i, j, raw_prefix);
          if (state_ != State::kCode) return i;
          continue;
        }
      }
      if (is_keyword(word)) {
        flush(i);
        out.need(HtmlOut::kSpanMarkup + word.size());
        out.put_plain_span('k', word);
        plain = j;
      }
      i = j;
      continue;
    }
    if (c == '/' && next == '/') {
      flush(i);
      out.need(HtmlOut::kSpanMarkup + kMaxEscapedPerByte * (n - i));
      out.put_span('c', line.substr(i));
      if (continued_) state_ = State::kLineComment;
      return n;
    }
    if (c == '/' && next == '*') {
      flush(i);
      i = plain = block_comment(out, line, i, i + 2);  // "/*/" does not close
      if (state_ != State::kCode) return i;
      continue;
    }
    if (c == '"' || c == '\'') {
      flush(i);
      i = plain = literal(out, line, i, i, false);
      if (state_ != State::kCode) return i;
      continue;
    }
    ++i;  // a '/' or '.' that starts nothing
  }
  flush(n);
  return n;
}

}  // namespace covkit::report::html
