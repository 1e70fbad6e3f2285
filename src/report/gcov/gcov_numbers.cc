#include "report/gcov/gcov_numbers.h"

#include <fmt/format.h>

#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string_view>

namespace covkit::report {

std::string_view count_text(char* buf, int64_t count, bool human) {
  if (count < 1000 || !human) {
    const fmt::format_int digits(count);
    std::memcpy(buf, digits.data(), digits.size());
    return {buf, digits.size()};
  }
  static const char units[] = " kMGTPEZY";
  unsigned i;
  // Unsigned arithmetic: the same wrap-around as gcov for counts near 2^63, without UB.
  uint64_t divisor = 1;
  for (i = 0; units[i + 1]; i++, divisor *= 1000)
    if (int64_t(uint64_t(count) + divisor / 2) < int64_t(1000 * divisor)) break;
  float r = 1.0f * float(count) / float(int64_t(divisor));
  int n = std::snprintf(buf, 64, "%.1f%c", double(r), units[i]);
  return {buf, size_t(n)};
}

namespace {

// printf's "%.0f" of a non-negative float below 2^32: the nearest
// integer, ties to even (exact: a float's fraction is exact in a double).
// Most percentages gcov prints are whole (function and branch lines);
// printf's general float path was a percent of the run.
std::string_view whole_percent_text(char* buf, float ratio) {
  const double d = double(ratio);
  uint64_t whole = uint64_t(d);
  const double fraction = d - double(whole);
  if (fraction > 0.5 || (fraction == 0.5 && (whole & 1))) ++whole;
  const fmt::format_int digits(whole);
  std::memcpy(buf, digits.data(), digits.size());
  buf[digits.size()] = '%';
  return {buf, digits.size() + 1};
}

void append_padded(std::string& out, std::string_view text, size_t width) {
  if (text.size() < width) out.append(width - text.size(), ' ');
  out += text;
}

}  // namespace

std::string_view gcov_number_text(char* buf, int64_t top, int64_t bottom, int decimals, bool human) {
  if (decimals < 0) return count_text(buf, top, human);
  float ratio = bottom ? 100.0f * float(top) / float(bottom) : 0.0f;
  if (ratio > 0.0f && ratio < 0.5f && decimals == 0) ratio = 1.0f;
  // Not for -0.0 (printed "-0%"), negatives, NaN or huge values: printf's.
  if (decimals == 0 && !std::signbit(ratio) && ratio < 4294967296.0f) return whole_percent_text(buf, ratio);
  int n = std::snprintf(buf, 64, "%.*f%%", decimals, double(ratio));
  return {buf, size_t(n)};
}

std::string format_count(int64_t count, bool human) {
  char buf[64];
  return std::string(count_text(buf, count, human));
}

std::string format_gcov(int64_t top, int64_t bottom, int decimals, bool human) {
  char buf[64];
  return std::string(gcov_number_text(buf, top, bottom, decimals, human));
}

void append_count(std::string& out, int64_t count, bool human, size_t width) {
  char buf[64];
  append_padded(out, count_text(buf, count, human), width);
}

void append_gcov(std::string& out, int64_t top, int64_t bottom, int decimals, bool human, size_t width) {
  char buf[64];
  append_padded(out, gcov_number_text(buf, top, bottom, decimals, human), width);
}

}  // namespace covkit::report
