#include "report/percent_text.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>

namespace covkit::report {

std::string format_percent(int64_t covered, int64_t total) {
  if (total <= 0) return "-";
  covered = std::clamp<int64_t>(covered, 0, total);
  // Tenths of a percent in integers: floating point would round 57.7% to
  // 57.6% and overflow nothing here (128 bits hold 2000 * 2^63).
  const __int128 t = total;
  int64_t tenths = int64_t((__int128(covered) * 2000 + t) / (2 * t));
  if (tenths == 1000 && covered < total) tenths = 999;
  if (tenths == 0 && covered > 0) tenths = 1;
  return fmt::format("{}.{}%", tenths / 10, tenths % 10);
}

std::string format_percent_below(int64_t covered, int64_t total, double limit) {
  std::string text = format_percent(covered, total);
  if (total <= 0 || std::strtod(text.c_str(), nullptr) < limit) return text;
  covered = std::clamp<int64_t>(covered, 0, total);
  __int128 scale = 1000;  // the percentage times 10^decimals, truncated
  for (int decimals = 2; decimals <= 12; ++decimals) {
    scale *= 10;
    const __int128 scaled = __int128(covered) * scale / total;
    __int128 unit = 1;
    for (int i = 0; i < decimals; ++i) unit *= 10;
    const int64_t whole = int64_t(scaled / unit), fraction = int64_t(scaled % unit);
    text = fmt::format("{}.{:0{}}%", whole, fraction, decimals);
    if (std::strtod(text.c_str(), nullptr) < limit) break;
  }
  return text;
}

double percent_sort_key(int64_t covered, int64_t total) {
  if (total <= 0) return -1.0;
  return 100.0 * double(covered) / double(total);
}

bool percent_less(int64_t covered1, int64_t total1, int64_t covered2, int64_t total2) {
  const bool empty1 = total1 <= 0, empty2 = total2 <= 0;
  if (empty1 || empty2) return empty1 && !empty2;
  return __int128(covered1) * total2 < __int128(covered2) * total1;
}

}  // namespace covkit::report
