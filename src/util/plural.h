#pragma once
// "1 module", "2 modules", "0 samples": a count and its noun, singular for
// exactly one. Summary lines read as sentences; "1 modules" and
// "thread(s)" read as a machine that did not look.
#include <cstdint>
#include <string>
#include <string_view>

#include <fmt/format.h>

namespace covkit::util {

inline std::string count_of(uint64_t n, std::string_view one, std::string_view many) {
  return fmt::format("{} {}", n, n == 1 ? one : many);
}

// The regular plural: the noun plus "s" ("module" -> "modules").
inline std::string count_of(uint64_t n, std::string_view one) {
  return n == 1 ? fmt::format("1 {}", one) : fmt::format("{} {}s", n, one);
}

}  // namespace covkit::util
