// report/line_builder: a line of literals and numbers comes out as the same
// text appended piece by piece, numbers at every place in the buffer
// (numbers are formatted straight into it, and it is flushed to make room).
#include "report/line_builder.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <string>

namespace covkit::report {
namespace {

TEST(LineBuilder, ExtremeNumbersAsDecimalText) {
  std::string out = "x";
  {
    LineBuilder line(out);
    line.add("DA:").add(int64_t(0)).add(',').add(std::numeric_limits<int64_t>::max()).add(',');
    line.add(std::numeric_limits<int64_t>::min()).add(',').add(uint32_t(4294967295u)).add('\n');
  }
  EXPECT_EQ(out, "xDA:0,9223372036854775807,-9223372036854775808,4294967295\n");
}

// Text before a number fills the 512-byte buffer to every level: the number
// is whole and in place whether or not the buffer is flushed first.
TEST(LineBuilder, NumbersAtEveryFillOfTheBuffer) {
  for (size_t fill = 480; fill <= 520; ++fill) {
    const std::string before(fill, 'a');
    std::string out;
    {
      LineBuilder line(out);
      line.add(before).add(std::numeric_limits<int64_t>::min()).add('|').add(int64_t(12345)).add(before);
    }
    EXPECT_EQ(out, before + "-9223372036854775808|12345" + before) << fill;
  }
}

}  // namespace
}  // namespace covkit::report
