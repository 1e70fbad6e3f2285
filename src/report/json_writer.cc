#include "report/json_writer.h"

#include <fmt/format.h>

namespace covkit::report {

void JsonWriter::before_value() {
  if (after_key_) {
    after_key_ = false;
    return;
  }
  if (!first_.empty()) {
    if (!first_.back()) out_ += ", ";
    first_.back() = false;
  }
}

void JsonWriter::open(char c) {
  before_value();
  out_ += c;
  first_.push_back(true);
}

void JsonWriter::close(char c) {
  out_ += c;
  first_.pop_back();
}

void JsonWriter::key(std::string_view k) {
  before_value();
  raw_string(k);
  out_ += ": ";
  after_key_ = true;
}

void JsonWriter::string(std::string_view s) {
  before_value();
  raw_string(s);
}

void JsonWriter::raw_string(std::string_view s) {
  out_ += '"';
  for (unsigned char ch : s) {
    switch (ch) {
      case '"': out_ += "\\\""; break;
      case '\\': out_ += "\\\\"; break;
      case '\b': out_ += "\\b"; break;
      case '\f': out_ += "\\f"; break;
      case '\n': out_ += "\\n"; break;
      case '\r': out_ += "\\r"; break;
      case '\t': out_ += "\\t"; break;
      default:
        if (ch < 0x20)
          out_ += fmt::format("\\u{:04x}", ch);
        else
          out_ += char(ch);
    }
  }
  out_ += '"';
}

void JsonWriter::integer(int64_t v) {
  before_value();
  out_ += fmt::format("{}", v);
}

void JsonWriter::raw_value(std::string_view json) {
  before_value();
  out_ += json;
}

void JsonWriter::boolean(bool b) {
  before_value();
  out_ += b ? "true" : "false";
}

}  // namespace covkit::report
