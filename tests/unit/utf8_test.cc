// util::append_utf8_or_replacement: well-formed sequences copied whole,
// anything else one U+FFFD per byte that starts no sequence.
#include <gtest/gtest.h>

#include <string>
#include <string_view>

#include "util/utf8.h"

namespace covkit::util {
namespace utf8_test {

// The whole of `s` through the function, as the writers use it.
std::string cleaned(std::string_view s) {
  std::string out;
  for (size_t i = 0; i < s.size();) {
    const size_t used = append_utf8_or_replacement(out, s, i);
    EXPECT_GE(used, 1u);
    i += used;
  }
  return out;
}

TEST(Utf8Test, WellFormedSequencesAreCopiedWhole) {
  EXPECT_EQ(cleaned("a\xC3\xA9\xE2\x82\xAC\xF0\x9F\x98\x80z"), "a\xC3\xA9\xE2\x82\xAC\xF0\x9F\x98\x80z");
}

TEST(Utf8Test, IllFormedBytesBecomeOneReplacementEach) {
  const std::string r(kReplacement);
  EXPECT_EQ(cleaned("\xC0\x80"), r + r);               // overlong NUL
  EXPECT_EQ(cleaned("\xED\xA0\x80"), r + r + r);       // a surrogate
  EXPECT_EQ(cleaned("\xE2\x82"), r + r);               // cut short at the end
  EXPECT_EQ(cleaned("\xE9t\xE9"), r + "t" + r);        // Latin-1
  EXPECT_EQ(cleaned("\xF4\x90\x80\x80"), r + r + r + r);  // above U+10FFFF
}

}  // namespace utf8_test
}  // namespace covkit::util
