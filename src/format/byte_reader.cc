#include "format/byte_reader.h"

#include <cstring>

namespace covkit::format {

namespace {
uint32_t bswap(uint32_t v) { return __builtin_bswap32(v); }
}  // namespace

bool ByteReader::read_magic(uint32_t expected) {
  auto raw = u32();
  if (!raw) return false;
  if (*raw == expected) return true;
  if (bswap(*raw) == expected) {
    swap_ = true;
    return true;
  }
  return false;
}

bool ByteReader::seek(size_t pos) {
  if (pos > data_.size()) return false;
  pos_ = pos;
  return true;
}

std::optional<uint64_t> ByteReader::u64() {
  auto lo = u32();
  if (!lo) return std::nullopt;
  auto hi = u32();
  if (!hi) return std::nullopt;
  return (uint64_t{*hi} << 32) | *lo;
}

std::optional<std::string_view> ByteReader::string_view(bool length_in_bytes, bool* is_null) {
  auto len = u32();
  if (!len) return std::nullopt;
  if (is_null) *is_null = (*len == 0);
  if (*len == 0) return std::string_view();
  uint64_t bytes = length_in_bytes ? uint64_t{*len} : uint64_t{*len} * 4;
  if (pos_ > end() || end() - pos_ < bytes) return std::nullopt;
  const char* p = reinterpret_cast<const char*>(data_.data() + pos_);
  pos_ += bytes;
  // The stored string ends at the first NUL (GCC pads with NULs).
  size_t n = strnlen(p, bytes);
  return std::string_view(p, n);
}

std::optional<std::string> ByteReader::string(bool length_in_bytes, bool* is_null) {
  auto view = string_view(length_in_bytes, is_null);
  if (!view) return std::nullopt;
  return std::string(*view);
}

ParseError ByteReader::overrun(const char* what) const {
  return ParseError{pos_, std::string(what) + " runs past the end of its record or file"};
}

}  // namespace covkit::format
