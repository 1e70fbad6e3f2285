#include "report/gcov/gcov_numbers.h"

#include <cinttypes>
#include <cstdio>

namespace covkit::report {

std::string format_count(int64_t count, bool human) {
  char buf[64];
  if (count < 1000 || !human) {
    std::snprintf(buf, sizeof buf, "%" PRId64, count);
    return buf;
  }
  static const char units[] = " kMGTPEZY";
  unsigned i;
  // Unsigned arithmetic: the same wrap-around as gcov for counts near 2^63, without UB.
  uint64_t divisor = 1;
  for (i = 0; units[i + 1]; i++, divisor *= 1000)
    if (int64_t(uint64_t(count) + divisor / 2) < int64_t(1000 * divisor)) break;
  float r = 1.0f * float(count) / float(int64_t(divisor));
  std::snprintf(buf, sizeof buf, "%.1f%c", double(r), units[i]);
  return buf;
}

std::string format_gcov(int64_t top, int64_t bottom, int decimals, bool human) {
  if (decimals < 0) return format_count(top, human);
  float ratio = bottom ? 100.0f * float(top) / float(bottom) : 0.0f;
  if (ratio > 0.0f && ratio < 0.5f && decimals == 0) ratio = 1.0f;
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f%%", decimals, double(ratio));
  return buf;
}

}  // namespace covkit::report
