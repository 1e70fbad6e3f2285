#pragma once
// Bounds-checked reader of the u32-word streams that make up .gcno/.gcda files.
// Byte order is decided once from the magic number; every read checks the
// remaining length so hostile input can only produce an error, never an
// out-of-bounds access.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "format/parse_error.h"

namespace covkit::format {

class ByteReader {
 public:
  explicit ByteReader(std::span<const uint8_t> data) : data_(data) {}

  // Reads the magic; returns false when neither byte order matches `expected`.
  bool read_magic(uint32_t expected);
  bool swapped() const { return swap_; }
  void set_swapped(bool s) { swap_ = s; }

  size_t position() const { return pos_; }
  size_t size() const { return data_.size(); }
  size_t remaining() const { return data_.size() - pos_; }
  bool at_end() const { return pos_ >= data_.size(); }
  // Limits reads to [position, end) for the duration of a record.
  void set_limit(size_t end) { end_ = end < data_.size() ? end : data_.size(); }
  void clear_limit() { end_ = data_.size(); }
  bool seek(size_t pos);

  // Always inlined: the readers' hot path, once per word of every file (an
  // out-of-line copy in the unity build was 5% of `covkit gcov`).
  [[gnu::always_inline]] std::optional<uint32_t> u32() {
    if (pos_ > end() || end() - pos_ < 4) return std::nullopt;
    uint32_t v;
    std::memcpy(&v, data_.data() + pos_, 4);
    pos_ += 4;
    return swap_ ? __builtin_bswap32(v) : v;
  }
  // The whole words left before the record's end (or the data's), and
  // word `i` of them, read without a check of its own: for a loop that
  // reads many words after one look at how many there are (an ARCS
  // record's arcs; a u32() per word was a third of reading a notes file).
  // skip_words(n), n <= words_left(), moves past them.
  size_t words_left() const { return pos_ > end() ? 0 : (end() - pos_) / 4; }
  [[gnu::always_inline]] uint32_t word_ahead(size_t i) const {
    uint32_t v;
    std::memcpy(&v, data_.data() + pos_ + 4 * i, 4);
    return swap_ ? __builtin_bswap32(v) : v;
  }
  void skip_words(size_t n) { pos_ += 4 * n; }
  std::optional<uint64_t> u64();  // gcov counters: low word first
  // GCC >= 12: u32 byte length (0 = null) then exactly that many bytes.
  // GCC < 12: u32 word length then that many NUL-padded words.
  // Returns nullopt on overrun; `is_null` tells a NULL string from "".
  std::optional<std::string> string(bool length_in_bytes, bool* is_null);
  // The same, viewing the bytes read (valid as long as they are).
  std::optional<std::string_view> string_view(bool length_in_bytes, bool* is_null);
  // Reads the string that follows when string_view would give `known` (which
  // holds no NUL byte) and says so; reads nothing otherwise. Most strings
  // of a notes file repeat the one before: compared in place, without the
  // search for their end.
  bool skip_string_if(bool length_in_bytes, std::string_view known) {
    if (pos_ > end() || end() - pos_ < 4) return false;
    uint32_t len;
    std::memcpy(&len, data_.data() + pos_, 4);
    if (swap_) len = __builtin_bswap32(len);
    const uint64_t bytes = length_in_bytes ? uint64_t{len} : uint64_t{len} * 4;
    // Length 0 is the null string; a string ends at its first NUL or its length.
    if (len == 0 || bytes < known.size() || end() - pos_ - 4 < bytes) return false;
    const uint8_t* p = data_.data() + pos_ + 4;
    if (bytes > known.size() && p[known.size()] != 0) return false;
    if (std::memcmp(p, known.data(), known.size()) != 0) return false;
    pos_ += 4 + bytes;
    return true;
  }

  // The error text for a failed read at the current position.
  ParseError overrun(const char* what) const;

 private:
  size_t end() const { return end_; }
  std::span<const uint8_t> data_;
  size_t pos_ = 0;
  size_t end_ = data_.size();  // of the record being read (set_limit), else of the data
  bool swap_ = false;
};

}  // namespace covkit::format
