#pragma once
// A small streaming JSON writer that prints the way GCC's json.cc does
// ("key": value, ", " between members), keeping insertion order and passing
// bytes through unchanged (file names need not be UTF-8).
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace covkit::report {

class JsonWriter {
 public:
  void begin_object() { open('{'); }
  void end_object() { close('}'); }
  void begin_array() { open('['); }
  void end_array() { close(']'); }
  void key(std::string_view k);
  void string(std::string_view s);
  void integer(int64_t v);
  void boolean(bool b);
  // Inserts already-serialised JSON as the next value.
  void raw_value(std::string_view json);

  std::string& text() { return out_; }

 private:
  void open(char c);
  void close(char c);
  void before_value();
  void raw_string(std::string_view s);

  std::string out_;
  std::vector<bool> first_;  // per open container: no member written yet
  bool after_key_ = false;
};

}  // namespace covkit::report
