#pragma once
// Bytes as lower-case hex, two digits a byte: an MD5 digest (gcov's -x
// names), a build-id (its /usr/lib/debug/.build-id/ place, a trace's check
// that a module is the one traced), a byte escaped as \xNN.
#include <span>
#include <string>

namespace covkit::util {

inline void append_hex(std::string& out, std::span<const unsigned char> bytes) {
  static constexpr char kDigits[] = "0123456789abcdef";
  for (unsigned char b : bytes) {
    out += kDigits[b >> 4];
    out += kDigits[b & 15];
  }
}

}  // namespace covkit::util
