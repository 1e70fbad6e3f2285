#pragma once
#include <optional>
#include <string>
#include <string_view>

namespace covkit::util {

// gzip-compresses `data` in memory exactly as zlib's gzopen(path, "w") +
// gzputs would write it (level 6, no name, no time), so that compression can
// run on worker threads and the bytes still match gcov's .gcov.json.gz.
std::optional<std::string> gzip_compress(std::string_view data);

// The data of a gzip stream, at most `limit` bytes of it (a bomb stops
// there); nullopt when it is not gzip or is damaged.
std::optional<std::string> gzip_decompress(std::string_view data, size_t limit);

}  // namespace covkit::util
