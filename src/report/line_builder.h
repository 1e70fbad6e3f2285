#pragma once
// A text's short lines of literals and numbers (lcov's BRDA and DA lines,
// Cobertura's <line> elements), made in a buffer on the stack and appended
// to the text whole: appended piece by piece, each was five to thirteen
// calls into std::string (zstd's report: 97,000 such lines, ~800
// instructions each). The caller ends each line with flush(): flushed by a
// destructor, a text that could not grow (std::bad_alloc, the CLI's "out
// of memory" line) ended the program in std::terminate instead, leaving
// its staged output file behind.
#include <fmt/compile.h>
#include <fmt/format.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

namespace covkit::report {

class LineBuilder {
 public:
  explicit LineBuilder(std::string& out) : out_(out) {}
  LineBuilder(const LineBuilder&) = delete;
  LineBuilder& operator=(const LineBuilder&) = delete;

  // Inlined, so that a literal's length is known and its copy a move or two.
  [[gnu::always_inline]] LineBuilder& add(std::string_view s) {
    if (s.size() > size_t(kRoom - used_)) {
      flush();
      if (s.size() > kRoom) {  // longer than the buffer: straight to the text
        out_.append(s);
        return *this;
      }
    }
    std::memcpy(buffer_ + used_, s.data(), s.size());
    used_ += s.size();
    return *this;
  }
  [[gnu::always_inline]] LineBuilder& add(char c) { return add(std::string_view(&c, 1)); }
  // Formatted straight into the buffer (formatted apart, its digits were a
  // memcpy call each: 300,000 calls in zstd's lcov and Cobertura).
  [[gnu::always_inline]] LineBuilder& add(int64_t n) {
    constexpr size_t kMostDigits = 20;  // "-9223372036854775808"
    if (kRoom - used_ < kMostDigits) flush();
    used_ = size_t(fmt::format_to(buffer_ + used_, FMT_COMPILE("{}"), n) - buffer_);
    return *this;
  }
  [[gnu::always_inline]] LineBuilder& add(uint32_t n) { return add(int64_t(n)); }

  void flush() {
    out_.append(buffer_, used_);
    used_ = 0;
  }

 private:
  static constexpr size_t kRoom = 512;
  std::string& out_;
  size_t used_ = 0;
  char buffer_[kRoom];
};

}  // namespace covkit::report
