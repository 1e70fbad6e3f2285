// format/gcda_writer: serialising data files as libgcov writes them, and
// read -> write -> read round trips of real files.
#include "format/gcda_writer.h"

#include <gtest/gtest.h>

#include <cstring>

#include "format/gcda_reader.h"
#include "format/gcov_tags.h"
#include "gcov_image_builder.h"
#include "test_support.h"

namespace covkit::format {
namespace gcda_writer_test {

using testing::GcovImageBuilder;
using testing::ImageParam;
using testing::Layout;

DataFile parse(const std::vector<uint8_t>& bytes) {
  auto r = read_data(bytes);
  if (auto* h = (r ? nullptr : &r.error())) {
    ADD_FAILURE() << h->message;
    return {};
  }
  return std::move(*r);
}

class GcdaWriterLayouts : public ::testing::TestWithParam<ImageParam> {};

TEST_P(GcdaWriterLayouts, WritesWhatTheBuilderWrites) {
  const auto [layout, big_endian] = GetParam();
  const bool v12 = layout == Layout::kGcc12;
  GcovImageBuilder b(layout, big_endian);
  b.data_header(0x01020304, 0x05060708);
  b.summary(2, 99);
  b.data_function(7, 8, 9);
  b.counters({3, -4, 0x7fffffffffffffffll});
  b.data_function(10, 11, 12);
  b.zero_counters(5);
  b.data_function_placeholder();
  b.record_words(0x01a70000, v12 ? 8 : 2, {0xdead, 0xbeef});
  b.word(0);  // libgcov's end tag

  DataFile f;
  f.version = *GcovVersion::decode(b.default_version());
  f.swapped = big_endian;
  f.stamp = 0x01020304;
  f.checksum = 0x05060708;
  DataRecord sum;
  sum.kind = DataRecord::Kind::kSummary;
  sum.tag = kTagObjectSummary;
  sum.runs = 2;
  sum.sum_max = 99;
  f.records.push_back(sum);
  DataRecord fn;
  fn.kind = DataRecord::Kind::kFunction;
  fn.tag = kTagFunction;
  fn.has_ids = true;
  fn.ident = 7, fn.lineno_checksum = 8, fn.cfg_checksum = 9;
  f.records.push_back(fn);
  DataRecord c;
  c.kind = DataRecord::Kind::kCounters;
  c.tag = kTagArcCounters;
  c.counters = {3, -4, 0x7fffffffffffffffll};
  c.num_counters = 3;
  f.records.push_back(c);
  fn.ident = 10, fn.lineno_checksum = 11, fn.cfg_checksum = 12;
  f.records.push_back(fn);
  DataRecord z;
  z.kind = DataRecord::Kind::kCounters;
  z.tag = kTagArcCounters;
  z.all_zero = true;
  z.num_counters = 5;
  f.records.push_back(z);
  DataRecord ph;
  ph.kind = DataRecord::Kind::kFunction;
  ph.tag = kTagFunction;
  ph.placeholder = true;
  f.records.push_back(ph);
  DataRecord other;
  other.kind = DataRecord::Kind::kOther;
  other.tag = 0x01a70000;
  other.words = {0xdead, 0xbeef};
  f.records.push_back(other);

  EXPECT_EQ(write_data(f), b.bytes());
  // And reading the builder's image writes it back unchanged.
  EXPECT_EQ(write_data(parse(b.bytes())), b.bytes());
}

INSTANTIATE_TEST_SUITE_P(Layouts, GcdaWriterLayouts, ::testing::ValuesIn(testing::all_image_params()),
                         [](const auto& info) { return testing::image_param_name(info.param); });

// Every data file libgcov writes ends with a zero word (the end tag), as
// the real files in GcdaWriterReal show; the writer must end with it too.
TEST(GcdaWriter, HeaderOnly) {
  DataFile f;
  f.version = GcovVersion::from_gcc(11, 3);
  f.stamp = 0xabcdef01;
  GcovImageBuilder b(Layout::kGcc11);
  b.data_header(0xabcdef01).word(0);
  EXPECT_EQ(write_data(f), b.bytes());
}

TEST(GcdaWriter, CompactZeroCountersOnGcc12) {
  GcovImageBuilder b(Layout::kGcc12);
  b.data_header(1).data_function(1, 2, 3).counters({0, 0, 0}).data_function(4, 5, 6).counters({0, 1}).word(0);
  DataFile f = parse(b.bytes());
  compact_zero_counters(f);
  ASSERT_EQ(f.records.size(), 4u);
  EXPECT_TRUE(f.records[1].all_zero);
  EXPECT_EQ(f.records[1].num_counters, 3u);
  EXPECT_TRUE(f.records[1].counters.empty());
  EXPECT_FALSE(f.records[3].all_zero);
  EXPECT_EQ(f.records[3].counters, (std::vector<int64_t>{0, 1}));

  GcovImageBuilder expected(Layout::kGcc12);
  expected.data_header(1).data_function(1, 2, 3).zero_counters(3).data_function(4, 5, 6).counters({0, 1}).word(0);
  EXPECT_EQ(write_data(f), expected.bytes());
}

// libgcov of GCC 11 already writes all-zero counters without payload (see
// the real gcc-11 data file in GcdaReaderReal.Gcc11), so compacting must
// apply to GCC 11 files as well.
TEST(GcdaWriter, CompactZeroCountersOnGcc11) {
  GcovImageBuilder b(Layout::kGcc11);
  b.data_header(1).data_function(1, 2, 3).counters({0, 0}).word(0);
  DataFile f = parse(b.bytes());
  compact_zero_counters(f);
  ASSERT_EQ(f.records.size(), 2u);
  EXPECT_TRUE(f.records[1].all_zero);
  GcovImageBuilder expected(Layout::kGcc11);
  expected.data_header(1).data_function(1, 2, 3).zero_counters(2).word(0);
  EXPECT_EQ(write_data(f), expected.bytes());
}

// GCC 8's libgcov always wrote the payload.
TEST(GcdaWriter, CompactZeroCountersLeavesGcc8Alone) {
  GcovImageBuilder b(Layout::kGcc11);
  b.data_header_v(0x4138352a /* "A85*" */, 1).data_function(1, 2, 3).counters({0, 0}).word(0);
  DataFile f = parse(b.bytes());
  compact_zero_counters(f);
  ASSERT_EQ(f.records.size(), 2u);
  EXPECT_FALSE(f.records[1].all_zero);
  EXPECT_EQ(write_data(f), b.bytes());
}

TEST(GcdaWriter, EmptyCounterRecordIsNotCompacted) {
  GcovImageBuilder b(Layout::kGcc12);
  b.data_header(1).data_function(1, 2, 3).counters({}).word(0);
  DataFile f = parse(b.bytes());
  compact_zero_counters(f);
  // zero counters compact to a "-0" length, which is the same as an empty record.
  EXPECT_EQ(write_data(f), b.bytes());
}

// An all-zero record claiming 2^31 bytes (GCC 12) or 2^31 words (GCC 11):
// the writer must reproduce the length word without negating INT32_MIN
// (signed overflow; UBSan reports it in sanitizer builds).
TEST(GcdaWriter, AllZeroRecordWithLengthInt32Min) {
  for (auto layout : {Layout::kGcc12, Layout::kGcc11}) {
    GcovImageBuilder b(layout);
    b.data_header(1).data_function(1, 2, 3).word(kTagArcCounters).word(0x80000000u).word(0);
    DataFile f = parse(b.bytes());
    ASSERT_EQ(f.records.size(), 2u);
    EXPECT_TRUE(f.records[1].all_zero);
    EXPECT_EQ(write_data(f), b.bytes());
  }
}

// --- real files -------------------------------------------------------------

// libgcov ends every data file with a zero word (the end tag); a file
// written back must end with it too.
void expect_round_trip(const std::vector<uint8_t>& original, const char* what) {
  ASSERT_GE(original.size(), 4u);
  EXPECT_EQ(std::vector<uint8_t>(original.end() - 4, original.end()), std::vector<uint8_t>(4, 0))
      << what << ": expected libgcov's terminating zero word";
  DataFile f = parse(original);
  EXPECT_FALSE(f.error) << what;
  std::vector<uint8_t> written = write_data(f);
  EXPECT_EQ(written, original) << what << ": write(read(file)) differs from the file";
  DataFile again = parse(written);
  ASSERT_EQ(again.records.size(), f.records.size()) << what;
  for (size_t i = 0; i < f.records.size(); ++i) {
    EXPECT_EQ(again.records[i].kind, f.records[i].kind) << what << " record " << i;
    EXPECT_EQ(again.records[i].length, f.records[i].length) << what << " record " << i;
    EXPECT_EQ(again.records[i].counters, f.records[i].counters) << what << " record " << i;
    EXPECT_EQ(again.records[i].all_zero, f.records[i].all_zero) << what << " record " << i;
  }
}

TEST(GcdaWriterReal, Gcc12RoundTripIsByteIdentical) {
  COVKIT_REQUIRE_PROGRAM(p, "gcc-12");
  // This file includes an all-zero counter record ("negative length" form).
  expect_round_trip(p.gcda, "gcc-12 gcda");
  expect_round_trip(testing::swap_words(p.gcda), "gcc-12 gcda, other byte order");
}

TEST(GcdaWriterReal, Gcc11RoundTripIsByteIdentical) {
  COVKIT_REQUIRE_PROGRAM(p, "gcc-11");
  expect_round_trip(p.gcda, "gcc-11 gcda");
  expect_round_trip(testing::swap_words(p.gcda), "gcc-11 gcda, other byte order");
}

// clang's files (GCC 4.8's layout) end with a program summary whose third
// word is the runs; it reads back the same once written (fuzz_gcda found the
// writer putting an object summary's two words in its place). clang's
// runtime ends a file with two zero words, the writer with libgcov's one.
TEST(GcdaWriterReal, ClangRoundTripKeepsTheRecords) {
  if (!testing::have_program("clang")) GTEST_SKIP() << "clang is not installed";
  testing::TempDir d;
  testing::write_text(d / "p.c", "int main(int argc, char **argv) { (void)argv; return argc > 2; }\n");
  std::string out;
  ASSERT_EQ(testing::run_command("cd '" + d.path() + "' && clang --coverage -o prog p.c && ./prog && ./prog", &out), 0)
      << out;
  const std::vector<uint8_t> gcda = testing::read_bytes(d / "p.gcda");
  const DataFile f = parse(gcda);
  ASSERT_FALSE(f.records.empty());
  EXPECT_EQ(f.records.back().tag, kTagProgramSummary);
  EXPECT_EQ(f.records.back().runs, 2u);
  const std::vector<uint8_t> written = write_data(f);
  EXPECT_EQ(std::vector<uint8_t>(written.begin(), written.end()),
            std::vector<uint8_t>(gcda.begin(), gcda.begin() + ptrdiff_t(written.size())));
  const DataFile again = parse(written);
  ASSERT_EQ(again.records.size(), f.records.size());
  for (size_t i = 0; i < f.records.size(); ++i) {
    EXPECT_EQ(again.records[i].tag, f.records[i].tag) << i;
    EXPECT_EQ(again.records[i].runs, f.records[i].runs) << i;
    EXPECT_EQ(again.records[i].counters, f.records[i].counters) << i;
  }
}

// -fprofile-generate adds value-profile and time-profiler counters; GCC 12
// writes those in the all-zero form too when they are all zero (here for g,
// which never runs).
TEST(GcdaWriterReal, Gcc12ProfileGenerateRoundTrip) {
  if (!testing::have_program("gcc-12")) GTEST_SKIP() << "gcc-12 is not installed";
  testing::TempDir d;
  testing::write_text(d / "v.c",
                      "int f(int a, int b) { return a / b; }\n"
                      "int g(int a, int b) { return a % b; }\n"
                      "int main(int argc, char **argv) { (void)argv; int s = 0;\n"
                      "  for (int i = 1; i < 5; i++) s += f(100, i);\n"
                      "  if (argc > 3) s += g(argc, 2);\n"
                      "  return s == 7; }\n");
  std::string out;
  ASSERT_EQ(testing::run_command("cd '" + d.path() + "' && gcc-12 -fprofile-generate -O0 -o vprog v.c && ./vprog", &out), 0)
      << out;
  auto bytes = testing::read_bytes(d / "vprog-v.gcda");
  ASSERT_FALSE(bytes.empty());
  expect_round_trip(bytes, "gcc-12 -fprofile-generate gcda");
}

TEST(GcdaWriterReal, Gcc11ProfileGenerateRoundTrip) {
  if (!testing::have_program("gcc-11")) GTEST_SKIP() << "gcc-11 is not installed";
  testing::TempDir d;
  testing::write_text(d / "v.c",
                      "int f(int a, int b) { return a / b; }\n"
                      "int g(int a, int b) { return a % b; }\n"
                      "int main(int argc, char **argv) { (void)argv; int s = 0;\n"
                      "  for (int i = 1; i < 5; i++) s += f(100, i);\n"
                      "  if (argc > 3) s += g(argc, 2);\n"
                      "  return s == 7; }\n");
  std::string out;
  ASSERT_EQ(testing::run_command("cd '" + d.path() + "' && gcc-11 -fprofile-generate -O0 -o vprog v.c && ./vprog", &out), 0)
      << out;
  auto bytes = testing::read_bytes(d / "vprog-v.gcda");
  ASSERT_FALSE(bytes.empty());
  expect_round_trip(bytes, "gcc-11 -fprofile-generate gcda");
}

}  // namespace
}  // namespace covkit::format

// Found by fuzz_gcda: an all-zero counter record whose "negative" length is
// INT32_MIN must be written back without signed overflow, byte for byte.
TEST(GcdaWriterEdge, MostNegativeZeroCounterLengthRoundTrips) {
  const std::vector<uint32_t> words = {0x67636461, 0x4232322a, 7, 9, 0x01a10000, 0x80000000u, 0};
  std::vector<uint8_t> bytes(words.size() * 4);
  std::memcpy(bytes.data(), words.data(), bytes.size());
  auto res = covkit::format::read_data(bytes);
  auto* df = (res ? &*res : nullptr);
  ASSERT_NE(df, nullptr);
  ASSERT_EQ(df->records.size(), 1u);
  EXPECT_TRUE(df->records[0].all_zero);
  EXPECT_EQ(df->records[0].num_counters, 0x80000000u / 8);
  EXPECT_EQ(covkit::format::write_data(*df), bytes);
}
