#pragma once
// Coverage streams built in memory, as a firmware sends them: for each file
// the "gcfn" header and the .gcda bytes of __gcov_info_to_gcda (no summary).
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "format/gcov_stream.h"
#include "gcov_image_builder.h"

namespace covkit::testing {

// One streamed file: two functions, the second a COMDAT placeholder when
// `with_placeholder`, with arc counters `a` and `b`.
inline void stream_file(GcovImageBuilder& s, std::string_view name, const std::vector<int64_t>& a,
                        const std::vector<int64_t>& b, uint32_t checksum = 0xc0ffee) {
  s.word(format::kFilenameMagic).word(kVersion12).string(name);
  s.data_header(0xffffffff, checksum);
  s.data_function(1, 0x1111, 0x2222);
  bool zero = true;
  for (int64_t v : a) zero = zero && v == 0;
  if (zero)
    s.zero_counters(uint32_t(a.size()));
  else
    s.counters(a);
  s.data_function(2, 0x3333, 0x4444);
  s.counters(b);
  s.word(0);
}

inline std::vector<uint8_t> two_file_stream(int64_t scale = 1) {
  GcovImageBuilder s(Layout::kGcc12);
  stream_file(s, "/build/fw/app.gcda", {3 * scale, 0}, {7 * scale});
  stream_file(s, "/build/fw/sensor.gcda", {0, 0}, {2 * scale});
  return s.take();
}

}  // namespace covkit::testing
