#include "report/html/html_escape.h"

#include "util/utf8.h"

namespace covkit::report::html {

void append_escaped(std::string& out, std::string_view text) {
  // Copies runs of harmless bytes at once: source pages are mostly such runs.
  size_t start = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    const char* entity = nullptr;
    switch (text[i]) {
      case '&':
        entity = "&amp;";
        break;
      case '<':
        entity = "&lt;";
        break;
      case '>':
        entity = "&gt;";
        break;
      case '"':
        entity = "&quot;";
        break;
      case '\'':
        entity = "&#39;";
        break;
      default: {
        if (static_cast<unsigned char>(text[i]) < 0x80) continue;
        // The pages say charset=utf-8: a byte that starts no well-formed
        // sequence (a Latin-1 source) becomes U+FFFD, as browsers show it.
        const size_t n = util::utf8_length(text, i);
        if (n > 0) {
          i += n - 1;
          continue;
        }
        entity = util::kReplacement.data();
      }
    }
    out.append(text.substr(start, i - start));
    out += entity;
    start = i + 1;
  }
  out.append(text.substr(start));
}

std::string escape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  append_escaped(out, text);
  return out;
}

}  // namespace covkit::report::html
