// Text bound for a terminal (util/terminal_text.h) and names in one-line
// messages (util/printable.h): what a terminal would act on is shown as
// \xNN, everything else is kept byte for byte.
#include "util/terminal_text.h"

#include <gtest/gtest.h>

#include "util/printable.h"

namespace covkit::util {
namespace {

TEST(TerminalText, KeepsTextLinesAndWellFormedUtf8) {
  const std::string gprof = "\f\n\t\tCall graph\n\nindex % time    self  children\n";
  EXPECT_EQ(terminal_text(gprof), gprof);
  EXPECT_EQ(terminal_text("\xC3\xBC \xE6\x97\xA5 \xC2\xA0 \xC4\x9B.c"), "\xC3\xBC \xE6\x97\xA5 \xC2\xA0 \xC4\x9B.c");  // ě ends in 0x9B
}

TEST(TerminalText, ShowsEscapeSequencesAndC1Controls) {
  EXPECT_EQ(terminal_text("a\x1b]52;c;eA==\x07" "b"), "a\\x1b]52;c;eA==\\x07b");  // OSC 52: the clipboard
  EXPECT_EQ(terminal_text("\x1b[2J\r\b\x7f"), "\\x1b[2J\\x0d\\x08\\x7f");
  EXPECT_EQ(terminal_text("\xC2\x9B" "2J"), "\\xc2\\x9b2J");       // U+009B: CSI
  EXPECT_EQ(terminal_text("\xC2\x9D" "0;t\xC2\x9C"), "\\xc2\\x9d0;t\\xc2\\x9c");  // OSC ... ST
  EXPECT_EQ(terminal_text("\x9B" "31m"), "\\x9b31m");              // CSI to an 8-bit terminal
  EXPECT_EQ(terminal_text("\xFF\xC3"), "\\xff\\xc3");              // no UTF-8
}

TEST(TerminalText, KeepsOnlyColoursWhenAsked) {
  const std::string coloured = "\x1b[31m    #####:\x1b[0m    3:x\n";
  EXPECT_EQ(terminal_text(coloured, Colours::kKeep), coloured);
  EXPECT_EQ(terminal_text(coloured), "\\x1b[31m    #####:\\x1b[0m    3:x\n");
  EXPECT_EQ(terminal_text("\x1b[2J\x1b]0;t\x07\x1b[1;31", Colours::kKeep), "\\x1b[2J\\x1b]0;t\\x07\\x1b[1;31");
  // gcov -k's own: a colour, then erase to the line's end; a reset
  const std::string gcov_k = "\x1b[45;37m\x1b[K    #####:\x1b[m\x1b[K    3:x\n";
  EXPECT_EQ(terminal_text(gcov_k, Colours::kKeep), gcov_k);
  // SGR that is not a colour (conceal, blink, bold, 256 colours) is escaped:
  // a source line could hide or dress text with it
  EXPECT_EQ(terminal_text("a\x1b[8mb\x1b[5;41mc\x1b[1md\x1b[38;5;1me\x1b[041m", Colours::kKeep),
            "a\\x1b[8mb\\x1b[5;41mc\\x1b[1md\\x1b[38;5;1me\\x1b[041m");
}

TEST(TerminalText, PipesAndFilesGetTheBytes) {
  FILE* f = std::tmpfile();
  ASSERT_NE(f, nullptr);
  EXPECT_FALSE(is_terminal(f));
  std::string room;
  const std::string_view s = "x\x1b]0;t\x07\n";
  EXPECT_EQ(for_terminal(f, s, room), s);
  EXPECT_EQ(write_for_terminal(f, s), s.size());
  std::rewind(f);
  char back[16] = {};
  EXPECT_EQ(std::fread(back, 1, sizeof back, f), s.size());
  EXPECT_EQ(std::string_view(back, s.size()), s);
  std::fclose(f);
}

TEST(Printable, ShowsControlsC1AndBytesOfNoUtf8) {
  EXPECT_EQ(printable("src/main.c"), "src/main.c");
  EXPECT_EQ(printable("\xC3\xBC\xC4\x9B.c"), "\xC3\xBC\xC4\x9B.c");
  EXPECT_EQ(printable("a\nb\tc\x1b[2J"), "a\\nb\\tc\\x1b[2J");
  EXPECT_EQ(printable("\xC2\x9B" "2J\xC2\x9D" "0;t\xC2\x9C"), "\\xc2\\x9b2J\\xc2\\x9d0;t\\xc2\\x9c");
  EXPECT_EQ(printable("\x9B" "31m\xFF"), "\\x9b31m\\xff");
  // a bidirectional override would show the rest of the name reordered
  EXPECT_EQ(printable("src/\xE2\x80\xAE" "c.exe"), "src/\\xe2\\x80\\xaec.exe");
  EXPECT_EQ(printable("\xE2\x81\xA6x\xD8\x9C"), "\\xe2\\x81\\xa6x\\xd8\\x9c");
  EXPECT_EQ(printable("\xE2\x80\x90"), "\xE2\x80\x90");  // a hyphen stays
}

}  // namespace
}  // namespace covkit::util
