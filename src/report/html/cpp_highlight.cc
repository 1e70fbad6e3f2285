#include "report/html/cpp_highlight.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdint>
#include <cstring>
#include <vector>

#include "report/html/html_escape.h"

namespace covkit::report::html {

using namespace std::string_view_literals;

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

// What code() needs to know of a byte, in one table look-up (it sees every
// byte of every source page): whether it starts nothing (blanks, operators,
// brackets: most of what is not a word) or continues an identifier, and
// whether escaping would change it (& < > and the bytes of UTF-8
// sequences). A run of plain code without the latter is appended as it is,
// not looked at a second time by append_escaped.
enum ByteClass : uint8_t {
  kStartsNothing = 1,
  kContinuesIdentifier = 2,
  kEscaped = 4,
  kStartsIdentifier = 8,
};
constexpr std::array<uint8_t, 256> byte_classes() {
  std::array<uint8_t, 256> classes{};
  for (int c = 0; c < 256; ++c) {
    const char ch = static_cast<char>(c);
    uint8_t k = 0;
    if (!(starts_identifier(ch) || is_digit(ch) || ch == '/' || ch == '.' || ch == '"' || ch == '\''))
      k |= kStartsNothing;
    if (starts_identifier(ch) || is_digit(ch)) k |= kContinuesIdentifier;
    if (starts_identifier(ch)) k |= kStartsIdentifier;
    if (ch == '&' || ch == '<' || ch == '>' || ch == '"' || ch == '\'' || c >= 0x80) k |= kEscaped;
    classes[size_t(c)] = k;
  }
  return classes;
}
constexpr std::array<uint8_t, 256> kByteClass = byte_classes();
bool is_blank(char c) { return c == ' ' || c == '\t' || c == '\f' || c == '\v'; }


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

// The HTML of one line, written into room the highlighter keeps (grown to
// its longest line's) and appended to the page at once: appending each
// piece to the page cost a call, a capacity check and a copy, a dozen per
// token (a tenth of a zstd report). Room for each piece is made before it
// is written, from its length (escaping makes at most kMaxEscapedPerByte
// bytes of one).
class LineHtml {
 public:
  explicit LineHtml(std::vector<char>& room) : room_(room) {
    if (room_.empty()) room_.resize(4096);
    p_ = room_.data();
    end_ = p_ + room_.size();
  }
  void raw(std::string_view s) {
    need(s.size());
    put(s);
  }
  void escaped(std::string_view s) {
    need(kMaxEscapedPerByte * s.size());
    p_ = write_escaped(p_, s);
  }
  // <span class="cls">text</span>, nothing for no text.
  void span(char cls, std::string_view text) {
    if (text.empty()) return;
    need(kSpanMarkup + kMaxEscapedPerByte * text.size());
    put("<span class=\""sv);
    *p_++ = cls;
    put("\">"sv);
    p_ = write_escaped(p_, text);
    put("</span>"sv);
  }
  std::string_view text() const { return {room_.data(), size_t(p_ - room_.data())}; }

 private:
  static constexpr size_t kSpanMarkup = "<span class=\"x\"></span>"sv.size();
  void need(size_t n) {
    if (size_t(end_ - p_) < n) grow(n);
  }
  void grow(size_t n) {
    const size_t used = size_t(p_ - room_.data());
    room_.resize(std::max(2 * room_.size(), used + n));
    p_ = room_.data() + used;
    end_ = room_.data() + room_.size();
  }
  void put(std::string_view s) {
    std::memcpy(p_, s.data(), s.size());
    p_ += s.size();
  }

  std::vector<char>& room_;
  char* p_ = nullptr;
  char* end_ = nullptr;
};

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
  LineHtml out(room_);
  highlight(out, line);
  page.append(out.text());
}

void CppHighlighter::highlight(LineHtml& out, std::string_view line) {
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
      out.span('c', line);
      if (!continued_) state_ = State::kCode;
      return;
    case State::kString:
      i = quoted(out, line, 0);
      break;
    case State::kRawString:
      i = raw_string(out, line, 0);
      break;
  }
  // A directive's '#' comes first on a line of its own (in a continued
  // #define, a leading '#' is the stringizing operator).
  size_t plain = i;  // code() writes the blanks looked at here as they are
  if (i == 0 && state_ == State::kCode && !after_continuation) {
    size_t j = 0;
    while (j < line.size() && is_blank(line[j])) ++j;
    if (j < line.size() && line[j] == '#') {
      out.raw(line.substr(0, j));
      plain = i = directive(out, line, j);
    } else {
      i = j;
    }
  }
  if (state_ == State::kCode) code(out, line, plain, i);
}

size_t CppHighlighter::block_comment(LineHtml& out, std::string_view line, size_t i, size_t search_from) {
  size_t end = line.find("*/", search_from);
  if (end == std::string_view::npos) {
    out.span('c', line.substr(i));
    state_ = State::kBlockComment;
    return line.size();
  }
  out.span('c', line.substr(i, end + 2 - i));
  state_ = State::kCode;
  return end + 2;
}

// A string or character literal continued from the previous line.
size_t CppHighlighter::quoted(LineHtml& out, std::string_view line, size_t i) {
  bool closed = false;
  size_t end = end_of_quoted(line, i, quote_, closed);
  out.span('s', line.substr(i, end - i));
  state_ = closed || !continued_ ? State::kCode : State::kString;
  return end;
}

size_t CppHighlighter::raw_string(LineHtml& out, std::string_view line, size_t i) {
  size_t end = line.find(raw_end_, i);
  if (end == std::string_view::npos) {
    out.span('s', line.substr(i));
    state_ = State::kRawString;
    return line.size();
  }
  end += raw_end_.size();
  out.span('s', line.substr(i, end - i));
  state_ = State::kCode;
  return end;
}

size_t CppHighlighter::directive(LineHtml& out, std::string_view line, size_t i) {
  size_t j = i + 1;
  while (j < line.size() && is_blank(line[j])) ++j;
  size_t name = j;
  while (j < line.size() && continues_identifier(line[j])) ++j;
  out.span('p', line.substr(i, j - i));
  std::string_view word = line.substr(name, j - name);
  if (word != "include" && word != "include_next" && word != "import") return j;
  size_t k = j;
  while (k < line.size() && is_blank(line[k])) ++k;
  if (k < line.size() && line[k] == '<') {
    size_t gt = line.find('>', k);
    if (gt != std::string_view::npos) {
      out.raw(line.substr(j, k - j));
      out.span('s', line.substr(k, gt + 1 - k));
      return gt + 1;
    }
  }
  return j;
}

// A literal from `start` (its prefix, if any) with its opening quote at
// `quote`; `raw` for R"delim(...)delim" (which falls back to an ordinary
// string when the delimiter is not one: over 16 characters, or with a space,
// backslash or parenthesis).
size_t CppHighlighter::literal(LineHtml& out, std::string_view line, size_t start, size_t quote, bool raw) {
  if (raw) {
    size_t open = quote + 1;
    while (open < line.size() && open - quote <= 17 && line[open] != '(' && line[open] != ')' && line[open] != '\\' &&
           line[open] != '"' && !is_blank(line[open]))
      ++open;
    if (open < line.size() && line[open] == '(' && open - quote <= 17) {
      raw_end_ = ")" + std::string(line.substr(quote + 1, open - quote - 1)) + "\"";
      size_t end = line.find(raw_end_, open + 1);
      if (end == std::string_view::npos) {
        out.span('s', line.substr(start));
        state_ = State::kRawString;
        return line.size();
      }
      end += raw_end_.size();
      out.span('s', line.substr(start, end - start));
      return end;
    }
  }
  quote_ = line[quote];
  bool closed = false;
  size_t end = end_of_quoted(line, quote + 1, quote_, closed);
  out.span('s', line.substr(start, end - start));
  if (!closed && continued_) state_ = State::kString;
  return end;
}

size_t CppHighlighter::code(LineHtml& out, std::string_view line, size_t plain, size_t i) {
  const char* const s = line.data();
  const size_t n = line.size();
  // The classes of the bytes from `plain` not yet written, or'ed together
  // (kEscaped: one of them needs escaping; only blanks before `i`).
  uint8_t seen = 0;
  auto flush = [&](size_t to) {
    const std::string_view run(s + plain, to - plain);
    if (seen & kEscaped)
      out.escaped(run);
    else
      out.raw(run);
    plain = to;
    seen = 0;
  };
  while (i < n) {
    const uint8_t cls = kByteClass[static_cast<unsigned char>(s[i])];
    if (cls & kStartsNothing) {
      seen |= cls;
      ++i;
      continue;
    }
    if (cls & kStartsIdentifier) {
      size_t j = i + 1;
      for (uint8_t k; j < n && ((k = kByteClass[static_cast<unsigned char>(s[j])]) & kContinuesIdentifier); ++j)
        seen |= k;
      seen |= cls;
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
        out.span('k', word);
        plain = j;
      }
      i = j;
      continue;
    }
    const char c = s[i];
    const char next = i + 1 < n ? s[i + 1] : '\0';
    if (c == '/' && next == '/') {
      flush(i);
      out.span('c', line.substr(i));
      if (continued_) state_ = State::kLineComment;
      return n;
    }
    if (c == '/' && next == '*') {
      flush(i);
      i = plain = block_comment(out, line, i, i + 2);  // "/*/" does not close
      if (state_ != State::kCode) return i;
      continue;
    }
    if (is_digit(c) || (c == '.' && is_digit(next))) {
      flush(i);
      const size_t end = end_of_number(line, i);
      out.span('n', std::string_view(s + i, end - i));
      i = plain = end;
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
