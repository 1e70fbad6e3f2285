#pragma once
// Where and why a coverage file could not be read. Readers never throw: they
// return what they could read plus, if something was wrong, one of these.
#include <cstdint>
#include <string>

namespace covkit::format {

struct ParseError {
  uint64_t offset = 0;   // byte offset in the file where the problem was seen
  std::string message;   // what is wrong, e.g. "record length 4000 runs past end of file (size 120)"
};

}  // namespace covkit::format
