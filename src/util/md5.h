#pragma once
#include <cstdint>
#include <string>
#include <string_view>

namespace covkit::util {

// Lower-case hex MD5 of `input` (gcov's -x uses it for output file names).
std::string md5_hex(std::string_view input);

// The first 8 bytes of `input`'s MD5 digest as a little-endian number: LLVM's
// MD5Hash, which names functions (NameRef) and translation units' file
// lists (FilenamesRef) in clang's profiles and coverage mappings.
uint64_t md5_low64(std::string_view input);

}  // namespace covkit::util
