#include "util/gzip.h"

#include <zlib.h>

namespace covkit::util {

std::optional<std::string> gzip_compress(std::string_view data) {
  z_stream zs{};
  // 15 + 16: a gzip wrapper, as gzopen uses; memory level 8 is zlib's default.
  if (deflateInit2(&zs, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
    return std::nullopt;
  std::string out;
  out.resize(deflateBound(&zs, uLong(data.size())) + 64);
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
  zs.avail_in = uInt(data.size());
  zs.next_out = reinterpret_cast<Bytef*>(out.data());
  zs.avail_out = uInt(out.size());
  int rc = deflate(&zs, Z_FINISH);
  size_t produced = out.size() - zs.avail_out;
  deflateEnd(&zs);
  if (rc != Z_STREAM_END) return std::nullopt;
  out.resize(produced);
  return out;
}

std::optional<std::string> gzip_decompress(std::string_view data, size_t limit) {
  z_stream zs{};
  if (inflateInit2(&zs, 15 + 16) != Z_OK) return std::nullopt;
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
  zs.avail_in = uInt(data.size());
  std::string out;
  char chunk[16384];
  int rc = Z_OK;
  while (rc == Z_OK && out.size() < limit) {
    zs.next_out = reinterpret_cast<Bytef*>(chunk);
    zs.avail_out = sizeof chunk;
    rc = inflate(&zs, Z_NO_FLUSH);
    out.append(chunk, sizeof chunk - zs.avail_out);
  }
  inflateEnd(&zs);
  if (rc != Z_STREAM_END && out.size() < limit) return std::nullopt;
  if (out.size() > limit) out.resize(limit);
  return out;
}

}  // namespace covkit::util
