#pragma once
// Bounds-checked reads of what clang's profile and coverage-mapping formats
// are made of: fixed-size integers in the file's byte order, unsigned
// LEB128 numbers, runs of bytes. Every read checks what is left, so hostile
// input yields nullopt (and the caller an Error with the byte offset),
// never a read out of bounds.
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "util/expected.h"

namespace covkit::clang {

class ByteCursor {
 public:
  // `base` is the offset of data[0] in the file, for error messages.
  explicit ByteCursor(std::span<const uint8_t> data, bool big_endian = false, uint64_t base = 0)
      : data_(data), big_(big_endian), base_(base) {}

  std::optional<uint8_t> u8() {
    if (pos_ >= data_.size()) return std::nullopt;
    return data_[pos_++];
  }
  std::optional<uint16_t> u16() { return fixed<uint16_t>(); }
  std::optional<uint32_t> u32() { return fixed<uint32_t>(); }
  std::optional<uint64_t> u64() { return fixed<uint64_t>(); }
  // Unsigned LEB128 of at most 64 bits (a longer one is damage). Most are
  // one byte (a mapping's line deltas, columns, counter tags): inlined
  // always (left to itself GCC called it, 1.5 million times in a report of
  // zstd's 17 programs, a twentieth of the run).
  [[gnu::always_inline]] std::optional<uint64_t> uleb128() {
    if (pos_ < data_.size() && !(data_[pos_] & 0x80)) return data_[pos_++];
    // Two bytes (the most common of the rest) inline too.
    if (pos_ + 1 < data_.size() && !(data_[pos_ + 1] & 0x80)) {
      const uint64_t v = uint64_t(data_[pos_] & 0x7f) | uint64_t(data_[pos_ + 1]) << 7;
      pos_ += 2;
      return v;
    }
    return uleb128_long();
  }
  std::optional<std::span<const uint8_t>> bytes(size_t n) {
    if (n > remaining()) return std::nullopt;
    auto s = data_.subspan(pos_, n);
    pos_ += n;
    return s;
  }
  std::optional<std::string_view> text(size_t n) {
    auto b = bytes(n);
    if (!b) return std::nullopt;
    return std::string_view(reinterpret_cast<const char*>(b->data()), b->size());
  }
  bool skip(size_t n) {
    if (n > remaining()) return false;
    pos_ += n;
    return true;
  }
  bool seek(size_t pos) {
    if (pos > data_.size()) return false;
    pos_ = pos;
    return true;
  }
  // Skips to the next multiple of `alignment` (relative to data[0]); false
  // when that is beyond the end.
  bool align(size_t alignment) {
    size_t r = pos_ % alignment;
    return r == 0 || skip(alignment - r);
  }

  size_t position() const { return pos_; }
  size_t size() const { return data_.size(); }
  size_t remaining() const { return data_.size() - pos_; }
  bool at_end() const { return pos_ >= data_.size(); }
  bool big_endian() const { return big_; }
  std::span<const uint8_t> data() const { return data_; }
  // The file offset of the current position.
  uint64_t offset() const { return base_ + pos_; }
  Error error(std::string what) const { return Error(offset(), std::move(what)); }

 private:
  std::optional<uint64_t> uleb128_long();
  template <typename T>
  std::optional<T> fixed() {
    if (remaining() < sizeof(T)) return std::nullopt;
    T v;
    std::memcpy(&v, data_.data() + pos_, sizeof(T));
    pos_ += sizeof(T);
    if (big_ != (std::endian::native == std::endian::big)) v = byteswap(v);
    return v;
  }
  template <typename T>
  static T byteswap(T v) {
    if constexpr (sizeof(T) == 2) return __builtin_bswap16(v);
    else if constexpr (sizeof(T) == 4) return __builtin_bswap32(v);
    else return __builtin_bswap64(v);
  }

  std::span<const uint8_t> data_;
  size_t pos_ = 0;
  bool big_ = false;
  uint64_t base_ = 0;
};

}  // namespace covkit::clang
