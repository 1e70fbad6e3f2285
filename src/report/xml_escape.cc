#include "report/xml_escape.h"

#include "util/utf8.h"

namespace covkit::report {

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
            r += util::kReplacement;
          else
            r += char(c);
      }
      ++i;
      continue;
    }
    const size_t n = util::utf8_length(s, i);
    const std::string_view seq = s.substr(i, n);
    if (n == 0 || seq == "\xEF\xBF\xBE" || seq == "\xEF\xBF\xBF") {
      r += util::kReplacement;
      i += n == 0 ? 1 : n;
    } else {
      r += seq;
      i += n;
    }
  }
  return r;
}

}  // namespace covkit::report
