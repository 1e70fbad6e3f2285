#include "util/md5.h"

#include <cstddef>

// From libiberty (the same MD5 gcov links); its header is not installed.
extern "C" void* md5_buffer(const char* buffer, size_t len, void* resblock);

namespace covkit::util {

std::string md5_hex(std::string_view input) {
  unsigned char digest[16];
  md5_buffer(input.data(), input.size(), digest);
  static const char* hex = "0123456789abcdef";
  std::string out;
  for (unsigned char b : digest) {
    out += hex[b >> 4];
    out += hex[b & 15];
  }
  return out;
}

uint64_t md5_low64(std::string_view input) {
  unsigned char digest[16];
  md5_buffer(input.data(), input.size(), digest);
  uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | digest[i];
  return v;
}

}  // namespace covkit::util
