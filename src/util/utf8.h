#pragma once
// Well-formed UTF-8, for writers whose formats must not carry invalid text
// (XML, JSON timelines, Graphviz labels): they replace what is not.
#include <cstddef>
#include <string_view>

namespace covkit::util {

inline constexpr std::string_view kReplacement = "\xEF\xBF\xBD";  // U+FFFD

// Length of the well-formed UTF-8 sequence starting at s[i] (Unicode's table
// of well-formed byte sequences: no overlongs, no surrogates), 0 if none.
size_t utf8_length(std::string_view s, size_t i);

}  // namespace covkit::util
