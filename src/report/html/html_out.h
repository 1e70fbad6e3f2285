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

// Writes through a local pointer, for the hottest writers (a row's start):
// a pointer kept in the HtmlOut is stored back and reloaded around each
// byte written (a char store may alias it); a local one stays in a register.
[[gnu::always_inline]] inline char* put_at(char* p, std::string_view s) {
  std::memcpy(p, s.data(), s.size());
  return p + s.size();
}
// The `n` (<= 32) bytes at `s`, which are followed by at least 32 - n
// readable bytes: two fixed-size moves instead of a call.
[[gnu::always_inline]] inline char* put_short_at(char* p, const char* s, size_t n) {
  char block[32];
  std::memcpy(block, s, 32);
  std::memcpy(p, block, 32);
  return p + n;
}

// A number's decimal digits, made once and copied (put_short_at) as often
// as needed.
class Decimal {
 public:
  explicit Decimal(uint64_t n) {
    char* d = digits_ + 32;
    do {
      *--d = char('0' + n % 10);
      n /= 10;
    } while (n != 0);
    begin_ = d;
  }
  const char* data() const { return begin_; }  // followed by >= 32 - size() readable bytes
  size_t size() const { return size_t(digits_ + 32 - begin_); }

 private:
  char digits_[64];
  const char* begin_;
};

class HtmlOut {
 public:
  HtmlOut() = default;
  HtmlOut(const HtmlOut&) = delete;
  HtmlOut& operator=(const HtmlOut&) = delete;

  // What was written; clear() starts again in the same memory.
  std::string_view text() const { return {buffer_.get(), size_t(p_ - buffer_.get())}; }
  void clear() { p_ = buffer_.get(); }

  // Room for `n` bytes in all, made at once (a page's size foreseen: its
  // buffer grown once, not doubled into fresh memory several times).
  void reserve_total(size_t n) {
    const size_t used = size_t(p_ - buffer_.get());
    if (n > used) need(n - used);
  }
  // Room for `n` more bytes (and kSlack beyond them, for put_short_at's
  // fixed-size copies); every write must be within room made.
  [[gnu::always_inline]] void need(size_t n) {
    if (size_t(end_ - p_) < n + kSlack) grow(n + kSlack);
  }
  [[gnu::always_inline]] void put(std::string_view s) {
    std::memcpy(p_, s.data(), s.size());
    p_ += s.size();
  }
  [[gnu::always_inline]] void put(char c) { *p_++ = c; }
  // Room made for `s` and `s` written: for text made elsewhere (a page's
  // head, a cell made as text).
  void append(std::string_view s) {
    need(s.size());
    put(s);
  }
  // Text from a file: escaped (html_escape.h); at most kMaxEscapedPerByte
  // bytes of room per byte.
  void put_escaped(std::string_view s) { p_ = write_escaped(p_, s); }
  // <span class="cls">text</span> with `text` escaped, nothing for no
  // text; room: kSpanMarkup + kMaxEscapedPerByte per byte.
  static constexpr size_t kSpanMarkup = std::string_view("<span class=\"x\"></span>").size();
  void put_span(char cls, std::string_view text) {
    if (text.empty()) return;
    char* p = span_open(p_, cls);
    p = write_escaped(p, text);
    p_ = put_at(p, std::string_view("</span>"));
  }
  // The same for text known to need no escaping (a keyword).
  void put_plain_span(char cls, std::string_view text) {
    char* p = span_open(p_, cls);
    p = put_at(p, text);
    p_ = put_at(p, std::string_view("</span>"));
  }
  // `n` in decimal.
  void put_decimal(uint64_t n) {
    const Decimal digits(n);
    p_ = put_short_at(p_, digits.data(), digits.size());
  }
  // Room for `n` bytes (and kSlack) at the returned pointer; written
  // through it and the put_*_at functions, then given back to advance().
  [[gnu::always_inline]] char* reserve(size_t n) {
    need(n);
    return p_;
  }
  void advance(char* p) { p_ = p; }

 private:
  static constexpr size_t kSlack = 32;
  static char* span_open(char* p, char cls) {
    p = put_at(p, std::string_view("<span class=\""));
    *p++ = cls;
    return put_at(p, std::string_view("\">"));
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
