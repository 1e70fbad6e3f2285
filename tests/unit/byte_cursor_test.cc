// ByteCursor::uleb128 against the format's definition, decoded a byte at a
// time here: every length from 1 to 10 bytes, canonical and padded
// (non-canonical) encodings, numbers ending at the buffer's end (fewer than
// the 8 bytes the fast path reads), truncated ones and ones over 64 bits.
#include <gtest/gtest.h>

#include <cstdint>
#include <optional>
#include <random>
#include <vector>

#include "clang/byte_cursor.h"

namespace covkit::clang {
namespace {

// The definition: 7 bits a byte, least significant first, the top bit set
// on every byte but the last; more than 64 bits is damage.
std::optional<uint64_t> reference(const std::vector<uint8_t>& b, size_t& pos) {
  uint64_t value = 0;
  for (unsigned shift = 0;; shift += 7) {
    if (pos >= b.size()) return std::nullopt;
    const uint8_t byte = b[pos++];
    const uint64_t bits = byte & 0x7f;
    if (shift >= 64 || (shift == 63 && bits > 1)) return std::nullopt;
    value |= bits << shift;
    if (!(byte & 0x80)) return value;
  }
}

std::vector<uint8_t> encode(uint64_t v, size_t pad_to = 0) {
  std::vector<uint8_t> out;
  do {
    out.push_back(uint8_t(v & 0x7f) | 0x80);
    v >>= 7;
  } while (v != 0);
  while (out.size() < pad_to) out.push_back(0x80);
  out.back() &= 0x7f;
  return out;
}

// Decodes every number of `bytes` with both and compares value and position.
void expect_same(const std::vector<uint8_t>& bytes) {
  ByteCursor cursor(bytes);
  size_t pos = 0;
  while (pos < bytes.size()) {
    const size_t before = pos;
    const auto want = reference(bytes, pos);
    const auto got = cursor.uleb128();
    ASSERT_EQ(got.has_value(), want.has_value()) << "at byte " << before;
    if (!want) return;  // damage: the caller stops there
    EXPECT_EQ(*got, *want) << "at byte " << before;
    ASSERT_EQ(cursor.position(), pos) << "at byte " << before;
  }
}

TEST(ByteCursor, Uleb128EveryLengthAsDefined) {
  std::mt19937_64 random(37);
  for (unsigned bits = 0; bits <= 64; ++bits) {
    for (int k = 0; k < 40; ++k) {
      uint64_t v = bits == 0 ? 0 : (random() >> (64 - bits)) | (uint64_t(1) << (bits - 1));
      std::vector<uint8_t> stream;
      // The number alone (at the buffer's end), then followed by others so
      // that the 8-byte read sees the next number's bytes.
      expect_same(encode(v));
      for (int n = 0; n < 5; ++n) {
        auto e = encode(n == 0 ? v : random() >> (random() % 64));
        stream.insert(stream.end(), e.begin(), e.end());
      }
      expect_same(stream);
      for (size_t cut = 0; cut < stream.size(); ++cut)
        expect_same(std::vector<uint8_t>(stream.begin(), stream.begin() + cut));
    }
  }
}

TEST(ByteCursor, Uleb128PaddedTruncatedAndTooLong) {
  for (size_t pad = 1; pad <= 12; ++pad) {
    for (uint64_t v : {uint64_t(0), uint64_t(1), uint64_t(127), uint64_t(128), uint64_t(1) << 56,
                       ~uint64_t(0)}) {
      auto e = encode(v, pad);
      e.push_back(0x05);
      for (int i = 0; i < 9; ++i) e.push_back(0x81);  // an unterminated tail
      expect_same(e);
    }
  }
  // Ten bytes whose last carries more than the 64th bit: damage.
  std::vector<uint8_t> over(9, 0xff);
  over.push_back(0x02);
  expect_same(over);
  ByteCursor c(over);
  EXPECT_FALSE(c.uleb128().has_value());
  // 2^64-1 in ten bytes is not.
  std::vector<uint8_t> max(9, 0xff);
  max.push_back(0x01);
  ByteCursor m(max);
  EXPECT_EQ(m.uleb128(), ~uint64_t(0));
  // Eight continuation bytes and then the end: truncated.
  std::vector<uint8_t> cut(8, 0x80);
  ByteCursor t(cut);
  EXPECT_FALSE(t.uleb128().has_value());
}

}  // namespace
}  // namespace covkit::clang
