#pragma once
#include <optional>
#include <string>
#include <string_view>

namespace covkit::util {

// gzip-compresses `data` in memory exactly as zlib's gzopen(path, "w") +
// gzputs would write it (level 6, no name, no time), so that compression can
// run on worker threads and the bytes still match gcov's .gcov.json.gz.
std::optional<std::string> gzip_compress(std::string_view data);

}  // namespace covkit::util
