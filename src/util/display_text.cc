#include "util/display_text.h"

#include <cstdint>
#include <vector>

#include "util/utf8.h"

namespace covkit::util {

namespace {

uint32_t decode(std::string_view s, size_t i, size_t n) {
  const auto b = [&](size_t k) { return uint32_t(static_cast<unsigned char>(s[i + k])); };
  switch (n) {
    case 1: return b(0);
    case 2: return (b(0) & 0x1f) << 6 | (b(1) & 0x3f);
    case 3: return (b(0) & 0x0f) << 12 | (b(1) & 0x3f) << 6 | (b(2) & 0x3f);
    default: return (b(0) & 0x07) << 18 | (b(1) & 0x3f) << 12 | (b(2) & 0x3f) << 6 | (b(3) & 0x3f);
  }
}

// The ranges a terminal draws two columns wide (East Asian Wide and Fullwidth,
// emoji), as wcwidth and fmt's width estimate take them.
bool wide(uint32_t c) {
  return (c >= 0x1100 && c <= 0x115f) || (c >= 0x2e80 && c <= 0x303e) || (c >= 0x3041 && c <= 0x33ff) ||
         (c >= 0x3400 && c <= 0x4dbf) || (c >= 0x4e00 && c <= 0x9fff) || (c >= 0xa000 && c <= 0xa4cf) ||
         (c >= 0xac00 && c <= 0xd7a3) || (c >= 0xf900 && c <= 0xfaff) || (c >= 0xfe30 && c <= 0xfe4f) ||
         (c >= 0xff00 && c <= 0xff60) || (c >= 0xffe0 && c <= 0xffe6) || (c >= 0x1f300 && c <= 0x1f64f) ||
         (c >= 0x1f900 && c <= 0x1f9ff) || (c >= 0x20000 && c <= 0x2fffd) || (c >= 0x30000 && c <= 0x3fffd);
}

bool combining(uint32_t c) {
  return (c >= 0x0300 && c <= 0x036f) || (c >= 0x1ab0 && c <= 0x1aff) || (c >= 0x1dc0 && c <= 0x1dff) ||
         (c >= 0x20d0 && c <= 0x20ff) || (c >= 0xfe20 && c <= 0xfe2f) || c == 0x200b || c == 0x200d;
}

size_t columns_of(uint32_t c) { return combining(c) ? 0 : wide(c) ? 2 : 1; }

// Length of the character at s[i] of well-formed text (1 for a stray byte).
size_t char_length(std::string_view s, size_t i) {
  const size_t n = utf8_length(s, i);
  return n ? n : 1;
}

}  // namespace

std::string display_text(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size();) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    if (c < 0x20 || c == 0x7f) {
      out += kReplacement;
      ++i;
      continue;
    }
    const size_t n = utf8_length(s, i);
    if (n == 0 || is_c1_control(s, i, n) || is_bidi_control(s, i, n)) {
      out += kReplacement;  // one for a C1 or bidi character, one for each stray byte
      i += n ? n : 1;
      continue;
    }
    out.append(s.substr(i, n));
    i += n;
  }
  return out;
}

size_t display_columns(std::string_view s) {
  size_t cols = 0;
  for (size_t i = 0; i < s.size();) {
    const size_t n = char_length(s, i);
    cols += columns_of(decode(s, i, n));
    i += n;
  }
  return cols;
}

std::string shorten_front(std::string_view s, size_t width) {
  if (width < 4 || display_columns(s) <= width) return std::string(s);
  // Character starts, to walk back from the end whole characters at a time.
  std::vector<size_t> starts;
  for (size_t i = 0; i < s.size(); i += char_length(s, i)) starts.push_back(i);
  size_t cols = 0, from = s.size();
  for (size_t k = starts.size(); k-- > 0;) {
    const size_t c = columns_of(decode(s, starts[k], char_length(s, starts[k])));
    if (cols + c > width - 3) break;
    cols += c;
    from = starts[k];
  }
  return "..." + std::string(s.substr(from));
}

std::string pad_right(std::string_view s, size_t width) {
  std::string out(s);
  const size_t cols = display_columns(s);
  if (cols < width) out.append(width - cols, ' ');
  return out;
}

}  // namespace covkit::util
