// format/gcov_hex_dump: the ':gcov:' lines a serial console carries, with
// the noise a console adds, and every lost, repeated or garbled line refused.
#include "format/gcov_hex_dump.h"

#include <gtest/gtest.h>

#include <string>

namespace covkit::format {
namespace gcov_hex_dump_test {

std::string bytes_of(const HexDump& d) { return std::string(d.bytes.begin(), d.bytes.end()); }

// A dump of `data` as the runtime prints it: 32 bytes a line, then the end line.
std::string dump_lines(std::string_view data, std::string_view prefix = "", std::string_view eol = "\r\n") {
  std::string text;
  uint32_t at = 0;
  for (; at < data.size(); at += 32) {
    text += std::string(prefix) + encode_hex_line(at, data.substr(at, 32)) + std::string(eol);
  }
  return text + std::string(prefix) + encode_hex_line(uint32_t(data.size()), "") + std::string(eol);
}

std::string error_of(std::string_view text) {
  auto d = decode_hex_dump(text);
  EXPECT_FALSE(d.has_value());
  return d ? "" : d.error().describe();
}

const std::string kData = "gcfn and then some bytes of a stream, more than thirty-two of them";

TEST(GcovHexDump, EncodesOffsetDataAndCheckDigits) {
  // offset bytes 00 00 01 02 + data 0a ff: sum 0x10c, low byte 0c.
  EXPECT_EQ(encode_hex_line(0x102, "\x0a\xff"), ":gcov:00000102:0aff:0c");
  EXPECT_EQ(encode_hex_line(0, ""), ":gcov:00000000::00");
}

TEST(GcovHexDump, DecodesThroughConsoleNoise) {
  // Timestamps before the marker, colour codes after the check digits, the
  // firmware's own lines between, LF, CRLF and bare CR line ends.
  std::string text = "boot ok\n";
  uint32_t at = 0;
  for (; at < kData.size(); at += 20) {
    text += "[" + std::to_string(at) + ".001] uart0: " + encode_hex_line(at, std::string_view(kData).substr(at, 20)) +
            "\x1b[0m" + (at % 40 ? "\r\n" : "\r");
    text += "log: something else\n";
  }
  text += encode_hex_line(uint32_t(kData.size()), "") + "\n";
  auto d = decode_hex_dump(text);
  ASSERT_TRUE(d) << d.error().describe();
  EXPECT_EQ(bytes_of(*d), kData);
}

TEST(GcovHexDump, SeveralDumpsFollowEachOther) {
  auto d = decode_hex_dump(dump_lines("first") + "reboot\n" + dump_lines("second", "", "\n"));
  ASSERT_TRUE(d) << d.error().describe();
  EXPECT_EQ(bytes_of(*d), "firstsecond");
  ASSERT_EQ(d->lines.size(), 2u);
  EXPECT_EQ(d->lines[1].stream_offset, 5u);
}

TEST(GcovHexDump, LostRepeatedOrGarbledLinesAreErrors) {
  const std::string text = dump_lines(kData, "", "\n");  // lines of 32, 32, 3 bytes, then the end
  std::vector<std::string> lines;
  for (size_t start = 0; start < text.size();) {
    size_t end = text.find('\n', start);
    lines.push_back(text.substr(start, end - start + 1));
    start = end + 1;
  }
  ASSERT_EQ(lines.size(), 4u);
  EXPECT_EQ(error_of(lines[0] + lines[2] + lines[3]),
            "corrupt at byte 83: line 2: offset 00000040, expected 00000020 (a line was lost or repeated)");
  EXPECT_EQ(error_of(lines[0] + lines[0] + lines[1]),
            "corrupt at byte 83: line 2: a new dump starts before the one begun at line 1 ended (its end line is "
            "missing)");
  EXPECT_EQ(error_of(lines[1] + lines[2] + lines[3]),
            "corrupt at byte 0: line 1: offset 00000020, but no dump is open (its first lines were lost?)");
  EXPECT_EQ(error_of(lines[0] + lines[1] + lines[2]),
            "corrupt at byte 0: line 1: this dump has no end line (cut off after 66 bytes)");
  std::string garbled = lines[1];
  garbled[20] = garbled[20] == '0' ? '1' : '0';
  EXPECT_NE(error_of(lines[0] + garbled + lines[2] + lines[3]).find("line 2: check digits"), std::string::npos);
  EXPECT_EQ(error_of(lines[0] + lines[1].substr(0, 40) + "\n"),
            "corrupt at byte 83: line 2: the line ends inside the data (cut off?)");
  EXPECT_EQ(error_of(lines[0] + lines[1].substr(0, 41) + "\n"),
            "corrupt at byte 83: line 2: no ':' after the data (the line was cut off?)");
  EXPECT_EQ(error_of(":gcov:0000zz00::00\n"), "corrupt at byte 0: line 1: the offset is not 8 hex digits");
  // 256 and 300 data bytes: too long, whatever the rest of the line holds.
  for (size_t n : {256u, 300u})
    EXPECT_EQ(error_of(":gcov:00000000:" + std::string(2 * n, '0') + ":00\n"),
              "corrupt at byte 0: line 1: more than 255 bytes on one line (at most 255)");
  const std::string full = encode_hex_line(0, std::string(255, 'x'));  // the longest line is read
  EXPECT_TRUE(decode_hex_dump(full + "\n" + encode_hex_line(255, "") + "\n").has_value());
  EXPECT_EQ(error_of(":gcov:00000000:abc:00\n"),
            "corrupt at byte 0: line 1: the data is not pairs of hex digits (at column 12 after the marker)");
}

TEST(GcovHexDump, TextWithoutDumpsSaysSo) {
  EXPECT_EQ(error_of(""), "corrupt at byte 0: no \":gcov:\" lines: not a hex dump of a coverage stream");
  EXPECT_EQ(error_of(std::string(3 << 20, '\0')),
            "corrupt at byte 0: 1048576 of the first 1048576 bytes are NUL: not a console log (nor a binary stream, "
            "which starts with \"gcfn\")");
  EXPECT_EQ(error_of(std::string(1000, '\n')),
            "corrupt at byte 1000: no \":gcov:\" lines: not a hex dump of a coverage stream");
  EXPECT_EQ(error_of(":gcov:00000000::00\n"), "corrupt at byte 0: line 1: an end line for a dump that has no bytes");
}

TEST(GcovHexDump, StreamErrorsArePlacedOnTheirLine) {
  const std::string text = "boot\n" + dump_lines(kData, "> ", "\n");
  auto d = decode_hex_dump(text);
  ASSERT_TRUE(d) << d.error().describe();
  Error e = d->locate(Error(40, "bad record"), text);
  EXPECT_EQ(e.describe(), "corrupt at byte " + std::to_string(text.find(":gcov:00000020")) +
                              ": line 3 (stream byte 40): bad record");
  EXPECT_EQ(d->locate(Error("no place"), text).describe(), "no place");
}

}  // namespace
}  // namespace covkit::format
