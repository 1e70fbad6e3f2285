#pragma once
// Well-formed UTF-8, for writers whose formats must not carry invalid text
// (XML, JSON timelines, Graphviz labels): they replace what is not.
#include <cstddef>
#include <string>
#include <string_view>

namespace covkit::util {

inline constexpr std::string_view kReplacement = "\xEF\xBF\xBD";  // U+FFFD

// Length of the well-formed UTF-8 sequence starting at s[i] (Unicode's table
// of well-formed byte sequences: no overlongs, no surrogates), 0 if none.
size_t utf8_length(std::string_view s, size_t i);

// Appends the well-formed sequence starting at s[i] to `out`, or U+FFFD for
// a byte that starts none; returns how many bytes of `s` it used (>= 1).
size_t append_utf8_or_replacement(std::string& out, std::string_view s, size_t i);

}  // namespace covkit::util
