// util/bzip2_on_demand: elfutils' three libbz2 functions, served by libbz2
// opened at the first call (Debian forbids a copy linked in, and a shared
// one loaded at start-up cost every command its mapping and relocations).
// The decompression is libbz2's own: a stream made by bzip2(1) decodes to
// its text, a stream whose block CRC no longer matches is refused, and a
// cut stream never reaches its end.
#include <bzlib.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "first_use_loading.h"

namespace covkit::util {
namespace bzip2_on_demand_test {

// `printf 'line 1 of a module elfutils decodes\nline 2\n' | bzip2 -9`
const std::vector<uint8_t> kStream = {
    0x42, 0x5a, 0x68, 0x39, 0x31, 0x41, 0x59, 0x26, 0x53, 0x59, 0x7d, 0x9c, 0x83, 0x33, 0x00, 0x00, 0x0e,
    0xd9, 0x80, 0x00, 0x10, 0x40, 0x00, 0x30, 0x00, 0x2f, 0x27, 0x8e, 0x00, 0x20, 0x00, 0x31, 0x43, 0x4d,
    0x30, 0x00, 0x35, 0x31, 0x0f, 0x50, 0x30, 0x8d, 0x1a, 0x1b, 0x55, 0x24, 0xd9, 0x92, 0x04, 0x07, 0xf5,
    0xd2, 0xed, 0x28, 0x28, 0xb8, 0x9d, 0x20, 0x9a, 0x6c, 0x13, 0xc9, 0xf8, 0xbb, 0x92, 0x29, 0xc2, 0x84,
    0x83, 0xec, 0xe4, 0x19, 0x98};
// The first block's CRC (after "BZh9" and the block's 6-byte magic number).
constexpr size_t kBlockCrcAt = 10;

// Decompresses `in` the way libdwfl does (init, decompress until the end or
// an error, end); the text, and the last answer in `ret`.
std::string decode(const std::vector<uint8_t>& in, int& ret) {
  bz_stream z{};
  ret = BZ2_bzDecompressInit(&z, 0, 0);
  if (ret != BZ_OK) return {};
  std::string out(4096, '\0');
  z.next_in = const_cast<char*>(reinterpret_cast<const char*>(in.data()));
  z.avail_in = static_cast<unsigned>(in.size());
  z.next_out = out.data();
  z.avail_out = static_cast<unsigned>(out.size());
  do ret = BZ2_bzDecompress(&z);
  while (ret == BZ_OK && z.avail_in > 0 && z.avail_out > 0);
  out.resize(out.size() - z.avail_out);
  BZ2_bzDecompressEnd(&z);
  return out;
}

TEST(Bzip2OnDemand, OpenedAtTheFirstCallAndDecodesAsLibbz2) {
  // Nothing before the first call loads it.
  test::expect_loaded_at_first_use(COVKIT_BZIP2_SONAME, [] {
    int ret = BZ_OK;
    return decode(kStream, ret) == "line 1 of a module elfutils decodes\nline 2\n" && ret == BZ_STREAM_END;
  });
  // And here, loaded or not before.
  int ret = BZ_OK;
  EXPECT_EQ(decode(kStream, ret), "line 1 of a module elfutils decodes\nline 2\n");
  EXPECT_EQ(ret, BZ_STREAM_END);
}

TEST(Bzip2OnDemand, ABrokenBlockCrcIsRefused) {
  std::vector<uint8_t> broken = kStream;
  broken[kBlockCrcAt] ^= 0x01;
  int ret = BZ_OK;
  decode(broken, ret);
  EXPECT_EQ(ret, BZ_DATA_ERROR);
}

TEST(Bzip2OnDemand, ACutStreamNeverEnds) {
  const std::vector<uint8_t> cut(kStream.begin(), kStream.begin() + 40);
  int ret = BZ_OK;
  decode(cut, ret);
  EXPECT_NE(ret, BZ_STREAM_END);
  EXPECT_EQ(ret, BZ_OK);  // waiting for more input: libdwfl calls that a damaged file
}

}  // namespace bzip2_on_demand_test
}  // namespace covkit::util
