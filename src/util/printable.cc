#include "util/printable.h"

#include <fmt/format.h>

#include "util/utf8.h"

namespace covkit::util {

std::string printable(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size();) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    // A C1 control (U+0080-U+009F, C2 80 - C2 9F) acts in a terminal as ESC
    // and a letter would, and a byte of no UTF-8 sequence (0x9B alone) does
    // in an 8-bit one: both shown as their bytes.
    const size_t n = c < 0x80 ? 1 : utf8_length(s, i);
    // So is a bidirectional formatting character, which would show the
    // rest of the name reordered: its lead byte here, the continuation
    // bytes after it (no sequence starts at them) by the same branch.
    const bool as_bytes = is_c1_control(s, i, n) || is_bidi_control(s, i, n);
    if (c == '\n')
      out += "\\n";
    else if (c == '\t')
      out += "\\t";
    else if (c < 0x20 || c == 0x7f || n == 0 || as_bytes)
      out += fmt::format("\\x{:02x}", c);
    else {
      out.append(s.substr(i, n));
      i += n;
      continue;
    }
    ++i;
  }
  return out;
}

}  // namespace covkit::util
