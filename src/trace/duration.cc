#include "trace/duration.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <string>

#include "util/rounding.h"

namespace covkit::trace {

std::optional<uint64_t> parse_duration_ns(std::string_view text) {
  size_t unit_at = 0;
  while (unit_at < text.size() && (std::isdigit(static_cast<unsigned char>(text[unit_at])) || text[unit_at] == '.'))
    ++unit_at;
  std::string_view number = text.substr(0, unit_at), unit = text.substr(unit_at);
  if (number.empty() || number.front() == '.' || number.back() == '.') return std::nullopt;
  double scale = 0;
  if (unit.empty() || unit == "ns") scale = 1;
  else if (unit == "us" || unit == "\xc2\xb5s") scale = 1e3;
  else if (unit == "ms") scale = 1e6;
  else if (unit == "s") scale = 1e9;
  else return std::nullopt;
  if (number.find('.') == std::string_view::npos) {
    uint64_t v = 0;
    auto [p, ec] = std::from_chars(number.data(), number.data() + number.size(), v);
    if (ec != std::errc() || p != number.data() + number.size()) return std::nullopt;
    if (scale > 1 && double(v) * scale >= 1.8e19) return std::nullopt;
    return v * uint64_t(scale);
  }
  if (std::count(number.begin(), number.end(), '.') > 1) return std::nullopt;
  double v = std::strtod(std::string(number).c_str(), nullptr) * scale;
  if (!std::isfinite(v) || v >= 1.8e19) return std::nullopt;
  return util::round_to_count(v);
}

}  // namespace covkit::trace
