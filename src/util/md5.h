#pragma once
#include <string>
#include <string_view>

namespace covkit::util {

// Lower-case hex MD5 of `input` (gcov's -x uses it for output file names).
std::string md5_hex(std::string_view input);

}  // namespace covkit::util
