#pragma once
// Numbers appended to text as fmt would format them ("{:>N}", "{}.{:03}"),
// without parsing a format string or making a temporary string: the trace
// views write millions of them.
#include <cstddef>
#include <cstdint>
#include <fmt/format.h>
#include <string>

namespace covkit::util {

// `value` in decimal, right-aligned in `width` columns (wider when it needs to be).
inline void append_decimal(std::string& out, uint64_t value, size_t width = 0) {
  const fmt::format_int digits(value);
  if (digits.size() < width) out.append(width - digits.size(), ' ');
  out.append(digits.data(), digits.size());
}

// '.' and `value` with `digits` digits, zeros in front ("{:0N}"); value < 10^digits.
inline void append_fraction(std::string& out, uint64_t value, unsigned digits) {
  char text[21];
  text[0] = '.';
  for (unsigned i = digits; i > 0; --i, value /= 10) text[i] = char('0' + value % 10);
  out.append(text, digits + 1);
}

// `ns` as seconds with nine decimals ("12.000000345"), right-aligned in `width` columns.
inline void append_seconds(std::string& out, uint64_t ns, size_t width = 0) {
  const fmt::format_int whole(ns / 1000000000);
  const size_t size = whole.size() + 10;
  if (size < width) out.append(width - size, ' ');
  out.append(whole.data(), whole.size());
  append_fraction(out, ns % 1000000000, 9);
}

}  // namespace covkit::util
