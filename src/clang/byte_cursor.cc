#include "clang/byte_cursor.h"

namespace covkit::clang {

std::optional<uint64_t> ByteCursor::uleb128_long() {
  uint64_t value = 0;
  for (unsigned shift = 0;; shift += 7) {
    auto b = u8();
    if (!b) return std::nullopt;
    const uint64_t bits = *b & 0x7f;
    // The 10th byte may carry one bit; anything beyond 64 bits is damage.
    if (shift >= 64 || (shift == 63 && bits > 1)) return std::nullopt;
    value |= bits << shift;
    if (!(*b & 0x80)) return value;
  }
}

}  // namespace covkit::clang
