#include "util/zlib_inflate.h"

#include <fmt/format.h>
#include <zlib.h>

namespace covkit::util {

namespace {

// Deflate cannot do better than about 1032:1; a claim beyond that (or
// beyond 1 GiB) is damage, and must not make covkit allocate it.
constexpr uint64_t kMaxRatio = 1100;
constexpr uint64_t kMaxInflated = uint64_t(1) << 30;

}  // namespace

Expected<std::string> zlib_inflate_exact(std::span<const uint8_t> compressed, uint64_t expected_size) {
  if (expected_size > kMaxInflated || expected_size > compressed.size() * kMaxRatio + 64)
    return Error(fmt::format("claims {} bytes inflated from {} compressed ones", expected_size, compressed.size()));
  if (compressed.size() > 0xffffffffu) return Error("a compressed block of 4 GiB or more");
  std::string out(expected_size, '\0');
  z_stream zs{};
  if (inflateInit(&zs) != Z_OK) return Error("zlib cannot start");
  zs.next_in = const_cast<Bytef*>(compressed.data());
  zs.avail_in = uInt(compressed.size());
  zs.next_out = reinterpret_cast<Bytef*>(out.data());
  zs.avail_out = uInt(out.size());
  const int rc = inflate(&zs, Z_FINISH);
  const uint64_t produced = zs.total_out;
  inflateEnd(&zs);
  if (rc == Z_STREAM_END && produced == expected_size) return out;
  if (rc == Z_STREAM_END)
    return Error(fmt::format("inflates to {} bytes, not the {} its size says", produced, expected_size));
  if (zs.avail_out == 0 && (rc == Z_BUF_ERROR || rc == Z_OK))
    return Error(fmt::format("inflates to more than the {} bytes its size says", expected_size));
  return Error("not a valid zlib stream");
}

}  // namespace covkit::util
