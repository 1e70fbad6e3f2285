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

// Whether the well-formed sequence of `n` bytes at s[i] is a C1 control
// (U+0080-U+009F, C2 80 - C2 9F), which a terminal takes as ESC and a
// letter (U+009B as CSI, U+009D as OSC).
inline bool is_c1_control(std::string_view s, size_t i, size_t n) {
  return n == 2 && static_cast<unsigned char>(s[i]) == 0xC2 && static_cast<unsigned char>(s[i + 1]) < 0xA0;
}

// Whether the well-formed sequence of `n` bytes at s[i] is a bidirectional
// formatting character (U+061C, U+200E-U+200F, U+202A-U+202E,
// U+2066-U+2069): in a name it reorders what is shown after it, so
// `src/<U+202E>c.exe` reads as `src/exe.c` (the "Trojan Source" spoof).
inline bool is_bidi_control(std::string_view s, size_t i, size_t n) {
  const auto b = [&](size_t k) { return static_cast<unsigned char>(s[i + k]); };
  if (n == 2) return b(0) == 0xD8 && b(1) == 0x9C;
  if (n != 3 || b(0) != 0xE2) return false;
  return (b(1) == 0x80 && (b(2) == 0x8E || b(2) == 0x8F || (b(2) >= 0xAA && b(2) <= 0xAE))) ||
         (b(1) == 0x81 && b(2) >= 0xA6 && b(2) <= 0xA9);
}

// Appends the well-formed sequence starting at s[i] to `out`, or U+FFFD for
// a byte that starts none; returns how many bytes of `s` it used (>= 1).
size_t append_utf8_or_replacement(std::string& out, std::string_view s, size_t i);

}  // namespace covkit::util
