// format/gcov_stream_reader: the binary stream a freestanding target sends,
// and every way a hostile one is refused with the byte at fault.
#include "format/gcov_stream_reader.h"

#include <gtest/gtest.h>

#include "format/gcov_tags.h"
#include "gcov_stream_test_support.h"

namespace covkit::format {
namespace gcov_stream_reader_test {

using testing::GcovImageBuilder;
using testing::Layout;

Expected<GcovStream> read(const std::vector<uint8_t>& bytes) { return read_gcov_stream(bytes); }

std::string error_of(const std::vector<uint8_t>& bytes) {
  auto s = read(bytes);
  EXPECT_FALSE(s.has_value());
  return s ? "" : s.error().describe();
}

TEST(GcovStreamReader, ReadsEveryFileWithItsNameAndOffsets) {
  const auto bytes = testing::two_file_stream();
  ASSERT_TRUE(looks_like_binary_stream(bytes));
  auto s = read(bytes);
  ASSERT_TRUE(s) << s.error().describe();
  ASSERT_EQ(s->entries.size(), 2u);
  EXPECT_EQ(s->entries[0].filename, "/build/fw/app.gcda");
  EXPECT_EQ(s->entries[1].filename, "/build/fw/sensor.gcda");
  EXPECT_EQ(s->entries[0].offset, 0u);
  EXPECT_EQ(s->entries[0].data_offset, 12u + sizeof("/build/fw/app.gcda"));
  EXPECT_EQ(s->entries[1].offset, s->entries[0].data_offset + s->entries[0].data.bytes_read);
  const DataFile& app = s->entries[0].data;
  EXPECT_EQ(app.checksum, 0xc0ffeeu);
  ASSERT_EQ(app.records.size(), 4u);  // function, counters, function, counters: no summary
  EXPECT_EQ(app.records[1].counters, (std::vector<int64_t>{3, 0}));
  EXPECT_TRUE(s->entries[1].data.records[1].all_zero);
}

TEST(GcovStreamReader, ReadsTheTargetsByteOrder) {
  GcovImageBuilder s(Layout::kGcc12, /*big_endian=*/true);
  testing::stream_file(s, "/b/x.gcda", {5}, {6});
  auto stream = read(s.bytes());
  ASSERT_TRUE(stream) << stream.error().describe();
  EXPECT_TRUE(stream->entries[0].data.swapped);
  EXPECT_EQ(stream->entries[0].data.records[1].counters, (std::vector<int64_t>{5}));
}

TEST(GcovStreamReader, HeaderAndDataShareOneByteOrder) {
  GcovImageBuilder header(Layout::kGcc12);
  header.word(kFilenameMagic).word(testing::kVersion12).string("/b/x.gcda");
  GcovImageBuilder data(Layout::kGcc12, /*big_endian=*/true);
  data.data_header(1, 2).word(0);
  std::vector<uint8_t> bytes = header.bytes();
  bytes.insert(bytes.end(), data.bytes().begin(), data.bytes().end());
  EXPECT_EQ(error_of(bytes), fmt::format("corrupt at byte {}: /b/x.gcda: data in the other byte order than its "
                                         "\"gcfn\" header",
                                         header.size()));
}

TEST(GcovStreamReader, RefusesWhatIsNoStream) {
  EXPECT_EQ(error_of({}), "corrupt at byte 0: the stream is empty");
  GcovImageBuilder gcda(Layout::kGcc12);
  gcda.data_header(1, 2).word(0);
  EXPECT_EQ(error_of(gcda.bytes()), "corrupt at byte 0: a .gcda file, not a stream (no \"gcfn\" header naming it)");
  EXPECT_FALSE(looks_like_binary_stream(std::vector<uint8_t>(64, 0)));
  EXPECT_EQ(error_of(std::vector<uint8_t>(64, 0)),
            "corrupt at byte 0: not a gcov stream (it starts without a \"gcfn\" header)");
}

TEST(GcovStreamReader, TruncatedAnywhereNamesTheByte) {
  const auto whole = testing::two_file_stream();
  // Every cut either ends between two files (a shorter stream) or is an error
  // at or before the cut; never a crash, never a file from bytes not there.
  for (size_t cut = 1; cut < whole.size(); ++cut) {
    std::vector<uint8_t> part(whole.begin(), whole.begin() + cut);
    auto s = read(part);
    if (s) {
      EXPECT_EQ(s->entries.size(), 1u) << "cut at " << cut;
      continue;
    }
    ASSERT_TRUE(s.error().offset) << "cut at " << cut;
    EXPECT_LE(*s.error().offset, cut) << "cut at " << cut;
  }
  std::vector<uint8_t> cut(whole.begin(), whole.end() - 4);  // the last end word gone
  EXPECT_EQ(error_of(cut), "corrupt at byte " + std::to_string(whole.size() - 4) +
                               ": /build/fw/sensor.gcda: the stream ends inside this file's data (its end word is "
                               "missing)");
}

TEST(GcovStreamReader, LyingLengthsAreCaughtAtTheirRecord) {
  GcovImageBuilder s(Layout::kGcc12);
  s.word(kFilenameMagic).word(testing::kVersion12).string("/b/x.gcda");
  const size_t data_at = s.size();
  s.data_header(1, 2).data_function(1, 2, 3);
  const size_t counters_at = s.size();
  s.record_words(kTagArcCounters, 0x7ffffff8, {1, 0});  // 2 GiB of counters that are not there
  s.word(0);
  EXPECT_EQ(error_of(s.bytes()), fmt::format("corrupt at byte {}: /b/x.gcda: record 0x01a10000 of 2147483640 bytes "
                                             "runs past the end of the file ({} bytes)",
                                             counters_at, s.size() - data_at));

  GcovImageBuilder odd(Layout::kGcc12);
  odd.word(kFilenameMagic).word(testing::kVersion12).string("/b/x.gcda");
  odd.data_header(1, 2).data_function(1, 2, 3);
  const size_t odd_at = odd.size();
  odd.record_words(kTagArcCounters, 12, {1, 0, 0}).word(0);
  EXPECT_EQ(error_of(odd.bytes()),
            fmt::format("corrupt at byte {}: /b/x.gcda: counter record of 12 bytes (not whole 8-byte counters)",
                        odd_at));

  GcovImageBuilder name(Layout::kGcc12);
  name.word(kFilenameMagic).word(testing::kVersion12).word(0xfffffff0);
  EXPECT_EQ(error_of(name.bytes()), "corrupt at byte 8: a file name of 4294967280 bytes (at most 4096)");
  GcovImageBuilder null_name(Layout::kGcc12);
  null_name.word(kFilenameMagic).word(testing::kVersion12).word(0);
  EXPECT_EQ(error_of(null_name.bytes()), "corrupt at byte 8: the \"gcfn\" header names no file (a NULL name)");
  GcovImageBuilder unterminated(Layout::kGcc12);
  unterminated.word(kFilenameMagic).word(testing::kVersion12).word(3).raw("abc");
  EXPECT_EQ(error_of(unterminated.bytes()), "corrupt at byte 12: the file name does not end with a NUL byte");
}

TEST(GcovStreamReader, RefusesRecordsLibgcovNeverStreams) {
  GcovImageBuilder s(Layout::kGcc12);
  s.word(kFilenameMagic).word(testing::kVersion12).string("/b/x.gcda");
  s.data_header(1, 2);
  const size_t at = s.size();
  s.record_words(kTagBlocks, 4, {9}).word(0);
  EXPECT_EQ(error_of(s.bytes()),
            fmt::format("corrupt at byte {}: /b/x.gcda: record tag 0x01410000 is not one libgcov writes into a "
                        "stream",
                        at));
}

// Found by fuzz_stream: a function record of 13..15 bytes holds the three
// words and parses, but libgcov writes 0 or 12, and the stream's bytes could
// not be written back from what was read.
TEST(GcovStreamReader, FunctionRecordOfOddLengthIsRefused) {
  GcovImageBuilder s(Layout::kGcc12);
  s.word(kFilenameMagic).word(testing::kVersion12).string("/b/x.gcda");
  s.data_header(1, 2);
  const size_t at = s.size();
  s.record_words(kTagFunction, 14, {1, 2, 3}).raw(std::string_view("\0\0", 2));
  s.record_words(kTagArcCounters, 8, {4, 0}).word(0);
  EXPECT_EQ(error_of(s.bytes()),
            fmt::format("corrupt at byte {}: /b/x.gcda: function record of 14 bytes (libgcov writes 0 or 12)", at));
}

TEST(GcovStreamReader, VersionsMustBeGcc12OnAndAgree) {
  GcovImageBuilder old(Layout::kGcc12);
  old.word(kFilenameMagic).word(testing::kVersion11).string("/b/x.gcda");
  EXPECT_EQ(error_of(old.bytes()),
            "corrupt at byte 4: version 'B13*': GCC 11 has no freestanding stream (GCC 12 and later)");
  GcovImageBuilder mixed(Layout::kGcc12);
  mixed.word(kFilenameMagic).word(0x4233302a).string("/b/x.gcda");  // gcfn says 13.0
  const size_t at = mixed.size();
  mixed.data_header(1, 2).word(0);
  EXPECT_EQ(error_of(mixed.bytes()),
            fmt::format("corrupt at byte {}: /b/x.gcda: data of version 'B22*' under a \"gcfn\" header of version "
                        "'B30*'",
                        at + 4));
}

TEST(GcovStreamReader, StrayBytesAfterTheLastFile) {
  auto bytes = testing::two_file_stream();
  const size_t end = bytes.size();
  bytes.push_back(0);
  EXPECT_EQ(error_of(bytes), fmt::format("corrupt at byte {}: 1 stray bytes after the last file", end));
  bytes.insert(bytes.end(), {0, 0, 0});
  EXPECT_EQ(error_of(bytes),
            fmt::format("corrupt at byte {}: expected the \"gcfn\" header of the next file, found 0x00000000", end));
}

}  // namespace
}  // namespace covkit::format
