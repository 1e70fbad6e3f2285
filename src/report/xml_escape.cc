#include "report/xml_escape.h"

namespace covkit::report {

namespace {

constexpr std::string_view kReplacement = "\xEF\xBF\xBD";  // U+FFFD

// Length of the well-formed UTF-8 sequence starting at s[i] (Unicode's table
// of well-formed byte sequences: no overlongs, no surrogates), 0 if none.
size_t utf8_length(std::string_view s, size_t i) {
  auto at = [&](size_t k) -> unsigned { return i + k < s.size() ? static_cast<unsigned char>(s[i + k]) : 0x100u; };
  auto in = [&](size_t k, unsigned lo, unsigned hi) { return at(k) >= lo && at(k) <= hi; };
  const unsigned c = at(0);
  if (c < 0x80) return 1;
  if (c >= 0xC2 && c <= 0xDF) return in(1, 0x80, 0xBF) ? 2 : 0;
  if (c == 0xE0) return in(1, 0xA0, 0xBF) && in(2, 0x80, 0xBF) ? 3 : 0;
  if (c == 0xED) return in(1, 0x80, 0x9F) && in(2, 0x80, 0xBF) ? 3 : 0;
  if (c >= 0xE1 && c <= 0xEF) return in(1, 0x80, 0xBF) && in(2, 0x80, 0xBF) ? 3 : 0;
  if (c == 0xF0) return in(1, 0x90, 0xBF) && in(2, 0x80, 0xBF) && in(3, 0x80, 0xBF) ? 4 : 0;
  if (c >= 0xF1 && c <= 0xF3) return in(1, 0x80, 0xBF) && in(2, 0x80, 0xBF) && in(3, 0x80, 0xBF) ? 4 : 0;
  if (c == 0xF4) return in(1, 0x80, 0x8F) && in(2, 0x80, 0xBF) && in(3, 0x80, 0xBF) ? 4 : 0;
  return 0;
}

}  // namespace

std::string xml_escape(std::string_view s) {
  std::string r;
  r.reserve(s.size());
  for (size_t i = 0; i < s.size();) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    if (c < 0x80) {
      switch (c) {
        case '&': r += "&amp;"; break;
        case '<': r += "&lt;"; break;
        case '>': r += "&gt;"; break;
        case '"': r += "&quot;"; break;
        case '\'': r += "&apos;"; break;
        // References, so attribute-value normalisation keeps them.
        case '\t': r += "&#9;"; break;
        case '\n': r += "&#10;"; break;
        case '\r': r += "&#13;"; break;
        default:
          // XML 1.0 cannot hold other C0 controls, not even as references.
          if (c < 0x20)
            r += kReplacement;
          else
            r += char(c);
      }
      ++i;
      continue;
    }
    const size_t n = utf8_length(s, i);
    const std::string_view seq = s.substr(i, n);
    if (n == 0 || seq == "\xEF\xBF\xBE" || seq == "\xEF\xBF\xBF") {
      r += kReplacement;
      i += n == 0 ? 1 : n;
    } else {
      r += seq;
      i += n;
    }
  }
  return r;
}

}  // namespace covkit::report
