#include "format/gcov_version.h"

#include <fmt/format.h>

namespace covkit::format {

std::optional<GcovVersion> GcovVersion::decode(uint32_t raw) {
  char c0 = char(raw >> 24), c1 = char(raw >> 16), c2 = char(raw >> 8);
  // GCC 4 wrote the major as a digit and the minor as two: "408*" is 4.8.
  if (c0 >= '0' && c0 <= '9' && c1 >= '0' && c1 <= '9' && c2 >= '0' && c2 <= '9') {
    GcovVersion v;
    v.raw = raw;
    v.major = c0 - '0';
    v.minor = (c1 - '0') * 10 + (c2 - '0');
    return v;
  }
  if (c0 < 'A' || c0 > 'Z' || c1 < '0' || c1 > '9' || c2 < '0' || c2 > '9') return std::nullopt;
  GcovVersion v;
  v.raw = raw;
  v.major = (c0 - 'A') * 10 + (c1 - '0');
  v.minor = c2 - '0';
  return v;
}

GcovVersion GcovVersion::from_gcc(int major, int minor) {
  uint32_t raw = (uint32_t('A' + major / 10) << 24) | (uint32_t('0' + major % 10) << 16) |
                 (uint32_t('0' + minor) << 8) | uint32_t('*');
  return *decode(raw);
}

std::string GcovVersion::gcc_version_string() const { return fmt::format("{}.{}.0", major, minor); }

std::string GcovVersion::four_chars() const { return version_chars(raw); }

std::string unsupported_version_message(uint32_t raw) {
  return "unsupported version '" + version_chars(raw) + "' (covkit reads GCC 8 to 14, and clang's '408*')";
}

std::string version_chars(uint32_t raw) {
  std::string s;
  for (int shift = 24; shift >= 0; shift -= 8) {
    char c = char(raw >> shift);
    s += (c >= 0x20 && c < 0x7f) ? c : '?';
  }
  return s;
}

}  // namespace covkit::format
