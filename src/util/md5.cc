#include "util/md5.h"

#include <cstddef>

#include "util/hex_text.h"

// From libiberty (the same MD5 gcov links); its header is not installed.
extern "C" void* md5_buffer(const char* buffer, size_t len, void* resblock);

namespace covkit::util {

std::string md5_hex(std::string_view input) {
  unsigned char digest[16];
  md5_buffer(input.data(), input.size(), digest);
  std::string out;
  append_hex(out, digest);
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
