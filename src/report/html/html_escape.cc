#include "report/html/html_escape.h"

#include <array>

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

}  // namespace

void append_escaped(std::string& out, std::string_view text) {
  // Copies runs of harmless bytes at once: source pages are mostly such runs.
  size_t start = 0;
  const size_t n = text.size();
  for (size_t i = 0; i < n; ++i) {
    if (!kAttention[static_cast<unsigned char>(text[i])]) continue;
    std::string_view entity;
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
        // The pages say charset=utf-8: a byte that starts no well-formed
        // sequence (a Latin-1 source) becomes U+FFFD, as browsers show it.
        const size_t len = util::utf8_length(text, i);
        if (len > 0) {
          i += len - 1;
          continue;
        }
        entity = util::kReplacement;
      }
    }
    out.append(text.data() + start, i - start);
    out.append(entity);
    start = i + 1;
  }
  out.append(text.data() + start, n - start);
}

std::string escape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  append_escaped(out, text);
  return out;
}

}  // namespace covkit::report::html
