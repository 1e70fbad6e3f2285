// Names shown in terminal tables and Markdown cells (util/display_text.h).
#include "util/display_text.h"

#include <gtest/gtest.h>

namespace covkit::util {
namespace {

const std::string kFffd = "\xEF\xBF\xBD";

TEST(DisplayText, KeepsWellFormedText) {
  EXPECT_EQ(display_text("src/main.c"), "src/main.c");
  EXPECT_EQ(display_text("\xC3\xBC.c"), "\xC3\xBC.c");                  // ü
  EXPECT_EQ(display_text("\xE6\x97\xA5\xE6\x9C\xAC.c"), "\xE6\x97\xA5\xE6\x9C\xAC.c");  // 日本
}

TEST(DisplayText, ReplacesBytesThatAreNoUtf8AndControls) {
  EXPECT_EQ(display_text("b\xFF" "d.c"), "b" + kFffd + "d.c");
  EXPECT_EQ(display_text("x\x01y\n.c"), "x" + kFffd + "y" + kFffd + ".c");
  EXPECT_EQ(display_text("\x7f"), kFffd);
  EXPECT_EQ(display_text("\xC3"), kFffd);          // cut short
  EXPECT_EQ(display_text("\xED\xA0\x80"), kFffd + kFffd + kFffd);  // a surrogate: three stray bytes
  EXPECT_EQ(display_text("\xC0\xAF"), kFffd + kFffd);  // overlong '/'
  // C1 controls: U+009B is CSI and U+009D OSC to xterm and VTE.
  EXPECT_EQ(display_text("\xC2\x9B" "2J\xC2\x9D" "0;t\xC2\x9C"), kFffd + "2J" + kFffd + "0;t" + kFffd);
  EXPECT_EQ(display_text("\xC2\xA0\xC4\x9B"), "\xC2\xA0\xC4\x9B");  // no-break space, e with caron
  // bidirectional formatting: U+202E would show src/<RLO>c.exe as src/exe.c
  EXPECT_EQ(display_text("src/\xE2\x80\xAE" "c.exe"), "src/" + kFffd + "c.exe");
  for (const char* bidi : {"\xD8\x9C", "\xE2\x80\x8E", "\xE2\x80\x8F", "\xE2\x80\xAA", "\xE2\x80\xAD",
                           "\xE2\x81\xA6", "\xE2\x81\xA9"})
    EXPECT_EQ(display_text(std::string("a") + bidi + "b"), "a" + kFffd + "b") << bidi;
  // their neighbours stay: U+200D (joiner), U+2010 (hyphen), U+2065, U+206A, U+061B
  for (const char* kept : {"\xE2\x80\x8D", "\xE2\x80\x90", "\xE2\x80\xAF", "\xE2\x81\xA5", "\xD8\x9B"})
    EXPECT_EQ(display_text(std::string("a") + kept + "b"), std::string("a") + kept + "b") << kept;
}

TEST(DisplayText, ColumnsCountCharactersNotBytes) {
  EXPECT_EQ(display_columns("main.c"), 6u);
  EXPECT_EQ(display_columns("\xC3\xBC.c"), 3u);
  EXPECT_EQ(display_columns(display_text("b\xFF" "d.c")), 5u);
  EXPECT_EQ(display_columns("\xE6\x97\xA5\xE6\x9C\xAC.c"), 6u);  // two wide characters
  EXPECT_EQ(display_columns("e\xCC\x81"), 1u);                    // e + combining acute
}

TEST(DisplayText, ShortensWholeCharactersFromTheFront) {
  EXPECT_EQ(shorten_front("src/main.c", 20), "src/main.c");
  EXPECT_EQ(shorten_front("src/main.c", 8), "...ain.c");
  EXPECT_EQ(shorten_front("src/main.c", 3), "src/main.c");  // too narrow to shorten
  // 6 columns for "日本日本" would split a character: only whole ones are kept.
  const std::string wide = "\xE6\x97\xA5\xE6\x9C\xAC\xE6\x97\xA5\xE6\x9C\xAC";
  EXPECT_EQ(shorten_front(wide, 6), "...\xE6\x9C\xAC");
  EXPECT_EQ(display_columns(shorten_front(wide, 6)), 5u);
  EXPECT_EQ(shorten_front("xx\xC3\xBC\xC3\xBC\xC3\xBCyz", 6), "...\xC3\xBCyz");  // 7 columns
}

TEST(DisplayText, PadsToColumns) {
  EXPECT_EQ(pad_right("ab", 4), "ab  ");
  EXPECT_EQ(pad_right("\xC3\xBC", 3), "\xC3\xBC  ");
  EXPECT_EQ(pad_right("\xE6\x97\xA5", 3), "\xE6\x97\xA5 ");
  EXPECT_EQ(pad_right("abcdef", 3), "abcdef");
}

}  // namespace
}  // namespace covkit::util
