// model/stream_file_names and model/stream_unpack: where streamed files go,
// how dumps become runs (libgcov's summary supplied), and how they add to
// each other and to files already in the output directory.
#include "model/stream_unpack.h"

#include <gtest/gtest.h>

#include "format/gcda_reader.h"
#include "format/gcov_stream_reader.h"
#include "gcov_stream_test_support.h"
#include "model/stream_file_names.h"
#include "test_support.h"
#include "util/file_io.h"

namespace covkit::model {
namespace stream_unpack_test {

using format::DataFile;
using format::DataRecord;

std::string text_of(const std::string& path) {
  auto bytes = testing::read_bytes(path);
  return std::string(bytes.begin(), bytes.end());
}

std::string relative(std::string_view name, unsigned strip = 0) {
  auto r = stream_file_relative_path(name, strip);
  return r ? *r : "error: " + r.error().message;
}

TEST(StreamFileNames, AbsoluteNamesStayBelowTheOutputDirectory) {
  EXPECT_EQ(relative("/home/me/fw/build/app.gcda"), "home/me/fw/build/app.gcda");
  EXPECT_EQ(relative("/home/me/fw/build/app.gcda", 3), "build/app.gcda");
  EXPECT_EQ(relative("//a/./b//app.gcda"), "a/b/app.gcda");
  EXPECT_EQ(relative("app.gcda"), "app.gcda");
}

TEST(StreamFileNames, AbsurdNamesAreRefused) {
  EXPECT_EQ(relative("/build/../../etc/app.gcda"),
            "error: the name has a '..' component (it could reach outside the output directory)");
  EXPECT_EQ(relative("/build/app.o"), "error: the name does not end in .gcda");
  EXPECT_EQ(relative("/build/.gcda"), "error: the name has no file name before .gcda");
  EXPECT_EQ(relative("/build/a\nb.gcda"), "error: the name holds control characters");
  EXPECT_EQ(relative("/" + std::string(300, 'x') + ".gcda"), "error: a component of 305 bytes (at most 255)");
  EXPECT_EQ(relative("/a/b.gcda", 2), "error: --strip 2 leaves nothing of a name of 2 components");
}

format::GcovStream stream_of(const std::vector<uint8_t>& bytes) {
  auto s = format::read_gcov_stream(bytes);
  EXPECT_TRUE(s) << s.error().describe();
  return s ? std::move(*s) : format::GcovStream{};
}

DataFile read_back(const std::string& bytes) {
  auto f = format::read_data(std::span(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()));
  EXPECT_TRUE(f);
  return f ? std::move(*f) : DataFile{};
}

TEST(StreamUnpack, OneDumpIsOneRunWithLibgcovsSummary) {
  testing::TempDir out;
  auto r = unpack_stream(stream_of(testing::two_file_stream()), out.path(), {});
  ASSERT_TRUE(r) << r.error().describe();
  EXPECT_EQ(r->dumps, 1u);
  ASSERT_EQ(r->files.size(), 2u);
  EXPECT_EQ(r->files[0].relative, "build/fw/app.gcda");
  DataFile app = read_back(r->files[0].bytes);
  ASSERT_EQ(app.records.size(), 5u);
  EXPECT_EQ(app.records[0].kind, DataRecord::Kind::kSummary);
  EXPECT_EQ(app.records[0].runs, 1u);
  EXPECT_EQ(app.records[0].sum_max, 7u);  // the largest arc counter of the dump, in any file
  DataFile sensor = read_back(r->files[1].bytes);
  EXPECT_EQ(sensor.records[0].sum_max, 7u);
}

TEST(StreamUnpack, DumpsAddUpAsRuns) {
  auto one = testing::two_file_stream(1), two = testing::two_file_stream(10);
  one.insert(one.end(), two.begin(), two.end());
  testing::TempDir out;
  auto r = unpack_stream(stream_of(one), out.path(), {});
  ASSERT_TRUE(r) << r.error().describe();
  EXPECT_EQ(r->dumps, 2u);
  ASSERT_EQ(r->files.size(), 2u);
  EXPECT_EQ(r->files[0].dumps, 2u);
  DataFile app = read_back(r->files[0].bytes);
  EXPECT_EQ(app.records[0].runs, 2u);
  EXPECT_EQ(app.records[0].sum_max, 7u + 70u);
  EXPECT_EQ(app.records[2].counters, (std::vector<int64_t>{33, 0}));
}

// A stream may bring its own summary (kept as it is), but one that counts
// no run is damage: a dump is a run (found by fuzz_stream).
TEST(StreamUnpack, ASummaryOfNoRunIsDamage) {
  format::GcovStream s = stream_of(testing::two_file_stream());
  ASSERT_EQ(s.entries.size(), 2u);
  DataRecord summary;
  summary.kind = DataRecord::Kind::kSummary;
  summary.tag = format::kTagObjectSummary;
  summary.length = 8;
  summary.runs = 0;
  s.entries[1].data.records.insert(s.entries[1].data.records.begin(), summary);
  testing::TempDir out;
  auto r = unpack_stream(s, out.path(), {});
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find(s.entries[1].filename + ": dump 1: its object summary counts 0 runs"),
            std::string::npos)
      << r.error().message;
  s.entries[1].data.records[0].runs = 3;
  r = unpack_stream(s, out.path(), {});
  ASSERT_TRUE(r) << r.error().describe();
  ASSERT_EQ(r->files.size(), 2u);
  EXPECT_EQ(read_back(r->files[1].bytes).records[0].runs, 3u);
}

TEST(StreamUnpack, AddsToFilesAlreadyThereAndWritesAllOrNothing) {
  testing::TempDir out;
  const auto stream = stream_of(testing::two_file_stream());
  auto first = write_unpacked_stream(stream, out.path(), {});
  ASSERT_TRUE(first) << first.error().describe();
  ASSERT_TRUE(util::write_file_atomic(out / "unrelated.txt", "kept"));
  auto second = write_unpacked_stream(stream, out.path(), {});
  ASSERT_TRUE(second) << second.error().describe();
  EXPECT_TRUE(second->files[0].added_to_existing);
  auto bytes = util::read_file(out / "build/fw/app.gcda");
  ASSERT_TRUE(bytes);
  DataFile app = read_back(std::string(bytes->text()));
  EXPECT_EQ(app.records[0].runs, 2u);
  EXPECT_EQ(app.records[2].counters, (std::vector<int64_t>{6, 0}));
  EXPECT_EQ(text_of(out / "unrelated.txt"), "kept");

  // Another build of sensor.c (another checksum): nothing is written at all.
  testing::GcovImageBuilder s(testing::Layout::kGcc12);
  testing::stream_file(s, "/build/fw/app.gcda", {1, 1}, {1});
  testing::stream_file(s, "/build/fw/sensor.gcda", {1, 1}, {1}, /*checksum=*/0xbad);
  const std::string before = text_of(out / "build/fw/app.gcda");
  auto third = write_unpacked_stream(stream_of(s.bytes()), out.path(), {});
  ASSERT_FALSE(third);
  EXPECT_EQ(third.error().message,
            "/build/fw/sensor.gcda: dump 1 cannot be added to " + out.path() +
                "/build/fw/sensor.gcda: checksums differ (0x00c0ffee vs 0x00000bad): the object was compiled again "
                "in between");
  EXPECT_EQ(text_of(out / "build/fw/app.gcda"), before);
}

TEST(StreamUnpack, NeverWritesThroughALinkOrOutsideTheDirectory) {
  testing::TempDir out, elsewhere;
  ASSERT_EQ(::symlink(elsewhere.path().c_str(), (out / "build").c_str()), 0);
  auto r = write_unpacked_stream(stream_of(testing::two_file_stream()), out.path(), {});
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().message, out.path() + "/build: a symbolic link; refusing to write through it");
  std::string listing;
  ASSERT_EQ(testing::run_command("ls -A '" + elsewhere.path() + "'", &listing), 0);
  EXPECT_EQ(listing, "");

  testing::GcovImageBuilder s(testing::Layout::kGcc12);
  testing::stream_file(s, "/build/../../x.gcda", {1}, {1});
  auto bad = unpack_stream(stream_of(s.bytes()), out.path(), {});
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().describe(),
            "corrupt at byte 0: /build/../../x.gcda: the name has a '..' component (it could reach outside the "
            "output directory)");
}

TEST(StreamUnpack, TwoNamesMeetingAfterStripIsAnError) {
  testing::GcovImageBuilder s(testing::Layout::kGcc12);
  testing::stream_file(s, "/a/x/app.gcda", {1}, {1});
  const size_t second = s.size();
  testing::stream_file(s, "/b/x/app.gcda", {1}, {1});
  testing::TempDir out;
  auto r = unpack_stream(stream_of(s.bytes()), out.path(), {.strip = 1});
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().describe(), "corrupt at byte " + std::to_string(second) + ": /b/x/app.gcda: goes to " +
                                      out.path() + "/x/app.gcda as /a/x/app.gcda does (a smaller --strip keeps them "
                                      "apart)");
}

}  // namespace
}  // namespace covkit::model
