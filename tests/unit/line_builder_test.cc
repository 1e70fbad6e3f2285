// report/line_builder: a line of literals and numbers comes out as the same
// text appended piece by piece, numbers at every place in the buffer
// (numbers are formatted straight into it, and it is flushed to make room).
#include "report/line_builder.h"
#include "util/sanitizer.h"

#include <gtest/gtest.h>
#include <sys/resource.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <string>

namespace covkit::report {
namespace {

// The process's address space now, from /proc/self/status.
size_t vm_size_bytes() {
  std::FILE* f = std::fopen("/proc/self/status", "r");
  char line[256];
  size_t kb = 0;
  while (f && std::fgets(line, sizeof line, f))
    if (std::sscanf(line, "VmSize: %zu kB", &kb) == 1) break;
  if (f) std::fclose(f);
  return kb * 1024;
}

TEST(LineBuilder, ExtremeNumbersAsDecimalText) {
  std::string out = "x";
  {
    LineBuilder line(out);
    line.add("DA:").add(int64_t(0)).add(',').add(std::numeric_limits<int64_t>::max()).add(',');
    line.add(std::numeric_limits<int64_t>::min()).add(',').add(uint32_t(4294967295u)).add('\n').flush();
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
      line.add(before).add(std::numeric_limits<int64_t>::min()).add('|').add(int64_t(12345)).add(before).flush();
    }
    EXPECT_EQ(out, before + "-9223372036854775808|12345" + before) << fill;
  }
}

// A line whose text cannot grow: std::bad_alloc reaches the caller (the
// CLI's "out of memory" line), not std::terminate from a destructor that
// flushed (review15: covkit report died of SIGABRT, its staged file left).
// Not under AddressSanitizer, whose allocator aborts at the address-space
// limit instead of throwing.
TEST(LineBuilderDeathTest, AFlushThatCannotAllocateThrowsBadAlloc) {
  if (COVKIT_ASAN) GTEST_SKIP() << "AddressSanitizer's allocator does not throw at the limit";
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        std::string out(size_t(64) << 20, 'x');  // full: the next append reallocates 128 MiB
        rlimit limit{};
        limit.rlim_cur = vm_size_bytes() + (size_t(16) << 20);
        limit.rlim_max = RLIM_INFINITY;
        ::setrlimit(RLIMIT_AS, &limit);
        try {
          LineBuilder line(out);
          line.add("DA:").add(int64_t(1)).add('\n').flush();
        } catch (const std::bad_alloc&) {
          std::_Exit(0);
        }
        std::_Exit(1);
      },
      ::testing::ExitedWithCode(0), "");
}

}  // namespace
}  // namespace covkit::report
