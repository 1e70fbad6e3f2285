// util/lzma_on_demand: elfutils' three liblzma functions, served by liblzma
// opened at the first call instead of a copy linked in (whose start-up code
// ran two cpuid instructions before main() in every command). The decoding
// is liblzma's own: a stream made by xz(1) decodes to its text, and a stream
// whose CRC-64 no longer matches its contents is refused as liblzma refuses it.
#include <gtest/gtest.h>
#include <lzma.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "first_use_loading.h"

namespace covkit::util {
namespace lzma_on_demand_test {

// `printf 'line 1 of a module elfutils decodes\nline 2\n' | xz -9e --check=crc64`
const std::vector<uint8_t> kStream = {
    0xfd, 0x37, 0x7a, 0x58, 0x5a, 0x00, 0x00, 0x04, 0xe6, 0xd6, 0xb4, 0x46, 0x02, 0x00, 0x21, 0x01, 0x1c,
    0x00, 0x00, 0x00, 0x10, 0xcf, 0x58, 0xcc, 0x01, 0x00, 0x2a, 0x6c, 0x69, 0x6e, 0x65, 0x20, 0x31, 0x20,
    0x6f, 0x66, 0x20, 0x61, 0x20, 0x6d, 0x6f, 0x64, 0x75, 0x6c, 0x65, 0x20, 0x65, 0x6c, 0x66, 0x75, 0x74,
    0x69, 0x6c, 0x73, 0x20, 0x64, 0x65, 0x63, 0x6f, 0x64, 0x65, 0x73, 0x0a, 0x6c, 0x69, 0x6e, 0x65, 0x20,
    0x32, 0x0a, 0x00, 0x00, 0x6c, 0x54, 0xf5, 0x4f, 0xdc, 0x33, 0xfd, 0x2e, 0x00, 0x01, 0x43, 0x2b, 0xad,
    0x50, 0x6e, 0x57, 0x1f, 0xb6, 0xf3, 0x7d, 0x01, 0x00, 0x00, 0x00, 0x00, 0x04, 0x59, 0x5a};
// Where the 8 bytes of the CRC-64 begin (after the block's compressed data).
constexpr size_t kCheckAt = 72;

// Decodes `in` the way libdwfl does (lzma_auto_decoder, lzma_code with
// LZMA_FINISH until the end); the text, and the last answer in `ret`.
std::string decode(const std::vector<uint8_t>& in, lzma_ret& ret) {
  lzma_stream z = LZMA_STREAM_INIT;
  ret = lzma_auto_decoder(&z, uint64_t(1) << 30, 0);
  if (ret != LZMA_OK) return {};
  std::string out(4096, '\0');
  z.next_in = in.data();
  z.avail_in = in.size();
  z.next_out = reinterpret_cast<uint8_t*>(out.data());
  z.avail_out = out.size();
  do ret = lzma_code(&z, LZMA_FINISH);
  while (ret == LZMA_OK && z.avail_out > 0);
  out.resize(out.size() - z.avail_out);
  lzma_end(&z);
  return out;
}

TEST(LzmaOnDemand, OpenedAtTheFirstCallAndDecodesAsLiblzma) {
  // Nothing before the first call loads it.
  test::expect_loaded_at_first_use(COVKIT_LZMA_SONAME, [] {
    lzma_ret ret = LZMA_OK;
    return decode(kStream, ret) == "line 1 of a module elfutils decodes\nline 2\n" && ret == LZMA_STREAM_END;
  });
  // And here, loaded or not before.
  lzma_ret ret = LZMA_OK;
  EXPECT_EQ(decode(kStream, ret), "line 1 of a module elfutils decodes\nline 2\n");
  EXPECT_EQ(ret, LZMA_STREAM_END);
}

TEST(LzmaOnDemand, ABrokenCheckIsRefused) {
  std::vector<uint8_t> broken = kStream;
  broken[kCheckAt] ^= 0x01;
  lzma_ret ret = LZMA_OK;
  decode(broken, ret);
  EXPECT_EQ(ret, LZMA_DATA_ERROR);
}

TEST(LzmaOnDemand, ACutStreamEndsWithAnError) {
  const std::vector<uint8_t> cut(kStream.begin(), kStream.begin() + 40);
  lzma_ret ret = LZMA_OK;
  decode(cut, ret);
  EXPECT_EQ(ret, LZMA_BUF_ERROR);
}

}  // namespace lzma_on_demand_test
}  // namespace covkit::util
