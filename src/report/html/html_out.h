#pragma once
// A source page written through a pointer into a buffer of its own, which
// the site reuses from page to page and writes out as it is. Appended to a
// std::string piece by piece, each piece of a row was a call, a capacity
// check and a copy of a few bytes (zstd's 87,000 rows: a fifth of the
// HTML's instructions); here a writer makes room for what it is about to
// write (need()), then writes without checks.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>

#include "report/html/html_escape.h"

namespace covkit::report::html {

class HtmlOut {
 public:
  HtmlOut() = default;
  HtmlOut(const HtmlOut&) = delete;
  HtmlOut& operator=(const HtmlOut&) = delete;

  // What was written; clear() starts again in the same memory.
  std::string_view text() const { return {buffer_.get(), size_t(p_ - buffer_.get())}; }
  void clear() { p_ = buffer_.get(); }

  // Room for `n` more bytes (and kSlack beyond them, for the fixed-size
  // copies below); every write must be within room made.
  [[gnu::always_inline]] void need(size_t n) {
    if (size_t(end_ - p_) < n + kSlack) grow(n + kSlack);
  }
  [[gnu::always_inline]] void put(std::string_view s) {
    std::memcpy(p_, s.data(), s.size());
    p_ += s.size();
  }
  [[gnu::always_inline]] void put(char c) { *p_++ = c; }
  // Text from a file: escaped (html_escape.h); at most kMaxEscapedPerByte
  // bytes of room per byte.
  void put_escaped(std::string_view s) { p_ = write_escaped(p_, s); }
  // <span class="cls">text</span> with `text` escaped, nothing for no
  // text; room: kSpanMarkup + kMaxEscapedPerByte per byte.
  static constexpr size_t kSpanMarkup = std::string_view("<span class=\"x\"></span>").size();
  void put_span(char cls, std::string_view text) {
    if (text.empty()) return;
    span_open(cls);
    put_escaped(text);
    put(std::string_view("</span>"));
  }
  // The same for text known to need no escaping (a keyword).
  void put_plain_span(char cls, std::string_view text) {
    span_open(cls);
    put(text);
    put(std::string_view("</span>"));
  }
  // `n` in decimal.
  void put_decimal(uint64_t n) {
    size_t digits = 1;
    for (uint64_t v = n; v >= 10; v /= 10) ++digits;
    p_ += digits;
    char* d = p_;
    do {
      *--d = char('0' + n % 10);
      n /= 10;
    } while (n != 0);
  }
  // The `n` (<= 16) bytes at `s`, which are followed by at least 16 - n
  // readable bytes: one fixed-size copy instead of a call.
  [[gnu::always_inline]] void put_short(const char* s, size_t n) {
    char block[16];
    std::memcpy(block, s, 16);
    std::memcpy(p_, block, 16);
    p_ += n;
  }
  // Where the next byte goes (for a writer that copies what it wrote).
  char* at() const { return p_; }

 private:
  static constexpr size_t kSlack = 16;
  void span_open(char cls) {
    put(std::string_view("<span class=\""));
    *p_++ = cls;
    put(std::string_view("\">"));
  }
  void grow(size_t n) {
    const size_t used = size_t(p_ - buffer_.get());
    size_t size = size_t(end_ - buffer_.get());
    size = std::max({size * 2, used + n, size_t(64) << 10});
    std::unique_ptr<char[]> bigger(new char[size]);  // not zeroed: each byte is written before it is read
    if (used) std::memcpy(bigger.get(), buffer_.get(), used);
    buffer_ = std::move(bigger);
    p_ = buffer_.get() + used;
    end_ = buffer_.get() + size;
  }

  std::unique_ptr<char[]> buffer_;
  char* p_ = nullptr;
  char* end_ = nullptr;
};

}  // namespace covkit::report::html
