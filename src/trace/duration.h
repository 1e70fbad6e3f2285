#pragma once
// Durations on the command line: "500ns", "10us", "2ms", "1.5s", or plain
// nanoseconds (--min-time, --min-duration).
#include <cstdint>
#include <optional>
#include <string_view>

namespace covkit::trace {

// nullopt when `text` is not such a duration or does not fit in 64 bits.
std::optional<uint64_t> parse_duration_ns(std::string_view text);

}  // namespace covkit::trace
