#include "clang/producer_version.h"

#include <algorithm>
#include <string_view>

namespace covkit::clang {

unsigned clang_major_version(std::span<const uint8_t> comment_section) {
  const std::string_view text(reinterpret_cast<const char*>(comment_section.data()), comment_section.size());
  constexpr std::string_view kMarker = "clang version ";
  unsigned newest = 0;
  for (size_t at = text.find(kMarker); at != std::string_view::npos; at = text.find(kMarker, at + 1)) {
    unsigned major = 0;
    size_t i = at + kMarker.size(), digits = 0;
    // A hostile section's digits: at most three taken (no overflow).
    for (; i < text.size() && digits < 3 && text[i] >= '0' && text[i] <= '9'; ++i, ++digits)
      major = major * 10 + unsigned(text[i] - '0');
    if (digits > 0 && (i == text.size() || text[i] < '0' || text[i] > '9')) newest = std::max(newest, major);
  }
  return newest;
}

}  // namespace covkit::clang
