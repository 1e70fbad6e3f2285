// format/gcda_reader: every field of synthetic data images in both layouts
// and byte orders, hostile records, and real gcc-11/gcc-12 data files.
#include "format/gcda_reader.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>

#include "format/gcov_tags.h"
#include "gcov_image_builder.h"
#include "test_support.h"

namespace covkit::format {
namespace gcda_reader_test {

using testing::GcovImageBuilder;
using testing::ImageParam;
using testing::Layout;
using Kind = DataRecord::Kind;

DataFile expect_data(DataResult r) {
  if (auto* h = (r ? nullptr : &r.error())) {
    ADD_FAILURE() << "header error: " << h->message;
    return {};
  }
  return std::move(*r);
}

constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
constexpr int64_t kMin = std::numeric_limits<int64_t>::min();

GcovImageBuilder sample_data(Layout layout, bool big_endian, std::vector<size_t>* offsets = nullptr) {
  GcovImageBuilder b(layout, big_endian);
  b.data_header(0x0badcafe, 0x600dd00d);
  auto mark = [&] {
    if (offsets) offsets->push_back(b.size());
  };
  mark();
  b.summary(3, 777);
  mark();
  b.data_function(0x11, 0x22, 0x33);
  mark();
  b.counters({1, 0, kMax, -1, kMin, 0x123456789abcdefll});
  mark();
  b.data_function(0x44, 0x55, 0x66);
  mark();
  b.zero_counters(3);
  mark();
  b.data_function_placeholder();
  mark();
  b.record_words(0x01a70000, layout == Layout::kGcc12 ? 8 : 2, {0xaaaa, 0xbbbb});  // topn counters
  return b;
}

class GcdaSample : public ::testing::TestWithParam<ImageParam> {};

TEST_P(GcdaSample, EveryField) {
  std::vector<size_t> offsets;
  auto b = sample_data(GetParam().layout, GetParam().big_endian, &offsets);
  const bool v12 = GetParam().layout == Layout::kGcc12;
  const DataFile df = expect_data(read_data(b.bytes()));
  EXPECT_FALSE(df.error) << df.error->message;
  EXPECT_EQ(df.swapped, GetParam().big_endian);
  EXPECT_EQ(df.version.raw, b.default_version());
  EXPECT_EQ(df.stamp, 0x0badcafeu);
  EXPECT_EQ(df.checksum, v12 ? 0x600dd00du : 0u);
  ASSERT_EQ(df.records.size(), 7u);
  for (size_t i = 0; i < 7; ++i) EXPECT_EQ(df.records[i].offset, offsets[i]) << i;

  const DataRecord& sum = df.records[0];
  EXPECT_EQ(sum.kind, Kind::kSummary);
  EXPECT_EQ(sum.tag, kTagObjectSummary);
  EXPECT_EQ(sum.length, v12 ? 8u : 2u);
  EXPECT_EQ(sum.runs, 3u);
  EXPECT_EQ(sum.sum_max, 777u);

  const DataRecord& f1 = df.records[1];
  EXPECT_EQ(f1.kind, Kind::kFunction);
  EXPECT_EQ(f1.length, v12 ? 12u : 3u);
  EXPECT_TRUE(f1.has_ids);
  EXPECT_FALSE(f1.placeholder);
  EXPECT_EQ(f1.ident, 0x11u);
  EXPECT_EQ(f1.lineno_checksum, 0x22u);
  EXPECT_EQ(f1.cfg_checksum, 0x33u);

  const DataRecord& c1 = df.records[2];
  EXPECT_EQ(c1.kind, Kind::kCounters);
  EXPECT_EQ(c1.tag, kTagArcCounters);
  EXPECT_EQ(c1.length, v12 ? 48u : 12u);
  EXPECT_FALSE(c1.all_zero);
  EXPECT_EQ(c1.num_counters, 6u);
  EXPECT_EQ(c1.counters, (std::vector<int64_t>{1, 0, kMax, -1, kMin, 0x123456789abcdefll}));

  const DataRecord& f2 = df.records[3];
  EXPECT_EQ(f2.ident, 0x44u);
  EXPECT_EQ(f2.lineno_checksum, 0x55u);
  EXPECT_EQ(f2.cfg_checksum, 0x66u);

  const DataRecord& z = df.records[4];
  EXPECT_EQ(z.kind, Kind::kCounters);
  EXPECT_TRUE(z.all_zero);
  EXPECT_EQ(z.num_counters, 3u);
  EXPECT_TRUE(z.counters.empty());
  EXPECT_EQ(int32_t(z.length), v12 ? -24 : -6);

  const DataRecord& ph = df.records[5];
  EXPECT_EQ(ph.kind, Kind::kFunction);
  EXPECT_TRUE(ph.placeholder);
  EXPECT_FALSE(ph.has_ids);
  EXPECT_EQ(ph.length, 0u);

  // Value-profile counters (kind 3 here) are counters too, kept by tag.
  const DataRecord& other = df.records[6];
  EXPECT_EQ(other.kind, Kind::kCounters);
  EXPECT_EQ(other.tag, 0x01a70000u);
  EXPECT_EQ(other.counters, (std::vector<int64_t>{0xbbbb0000aaaaLL}));
}

TEST_P(GcdaSample, EveryPrefixIsHandled) {
  auto b = sample_data(GetParam().layout, GetParam().big_endian);
  const auto& full = b.bytes();
  const size_t hdr = GetParam().layout == Layout::kGcc12 ? 16 : 12;
  for (size_t n = 0; n < full.size(); ++n) {
    std::vector<uint8_t> prefix(full.begin(), full.begin() + long(n));
    auto r = read_data(prefix);
    if (n < 4) {
      ASSERT_TRUE(!r.has_value()) << n;
      EXPECT_EQ(r.error().problem, HeaderProblem::kNotThisKind);
    } else if (n < hdr) {
      ASSERT_TRUE(!r.has_value()) << n;
      EXPECT_EQ(r.error().problem, HeaderProblem::kTruncatedHeader);
    } else {
      ASSERT_TRUE(r.has_value()) << n;
      const DataFile& df = (*r);
      EXPECT_LE(df.records.size(), 7u);
      if (df.error) {
        EXPECT_LE(df.error->offset, n);
        EXPECT_EQ(df.error->message.find('\n'), std::string::npos);
      }
      for (const DataRecord& rec : df.records) EXPECT_LE(rec.counters.size(), 6u);
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Layouts, GcdaSample, ::testing::ValuesIn(testing::all_image_params()),
                         [](const auto& info) { return testing::image_param_name(info.param); });

TEST(GcdaReader, EmptyFile) {
  auto r = read_data({});
  ASSERT_TRUE(!r.has_value());
  EXPECT_EQ(r.error().problem, HeaderProblem::kNotThisKind);
  EXPECT_EQ(r.error().message, "not a gcov data file");
}

TEST(GcdaReader, NotesFileIsNotADataFile) {
  GcovImageBuilder b(Layout::kGcc12);
  b.notes_header(1, "/x", true);
  auto r = read_data(b.bytes());
  ASSERT_TRUE(!r.has_value());
  EXPECT_EQ(r.error().problem, HeaderProblem::kNotThisKind);
}

TEST(GcdaReader, HeaderOnlyHasNoRecords) {
  GcovImageBuilder b(Layout::kGcc12);
  b.data_header(5, 6);
  const DataFile df = expect_data(read_data(b.bytes()));
  EXPECT_FALSE(df.error);
  EXPECT_TRUE(df.records.empty());
  EXPECT_EQ(df.stamp, 5u);
  EXPECT_EQ(df.checksum, 6u);
}

TEST(GcdaReader, ZeroTagEndsTheFile) {
  GcovImageBuilder b(Layout::kGcc12);
  b.data_header(5).summary(1, 1).word(0).word(0x12345678);
  const DataFile df = expect_data(read_data(b.bytes()));
  EXPECT_FALSE(df.error);
  EXPECT_EQ(df.records.size(), 1u);
}

TEST(GcdaReader, RecordPastEndOfFile) {
  for (auto layout : {Layout::kGcc12, Layout::kGcc11})
    for (uint32_t len : {0x7fffffffu, 1000u, 0x40000000u}) {
      GcovImageBuilder b(layout);
      b.data_header(5).summary(1, 1);
      size_t at = b.size();
      b.record_words(kTagFunction, len, {1, 2, 3});
      const DataFile df = expect_data(read_data(b.bytes()));
      ASSERT_TRUE(df.error) << len;
      EXPECT_EQ(df.error->offset, at);
      EXPECT_NE(df.error->message.find("runs past the end of the file"), std::string::npos) << df.error->message;
      // The cut record is kept as gcov reads it: not a 3-word function record.
      ASSERT_EQ(df.records.size(), 2u);
      EXPECT_TRUE(df.records[1].cut_short);
      EXPECT_EQ(df.records[1].kind, DataRecord::Kind::kFunction);
      EXPECT_FALSE(df.records[1].has_ids);
    }
}

// gcov reads a counter it cannot read whole as 0 and keeps those before it;
// a huge length costs only the counters present.
TEST(GcdaReader, CounterRecordCutShortKeepsWhatIsThere) {
  for (auto layout : {Layout::kGcc12, Layout::kGcc11})
    for (uint32_t n : {5u, 0x0fffffffu}) {
      GcovImageBuilder b(layout);
      b.data_header(5).summary(1, 1).data_function(7, 8, 9);
      const bool bytes = layout == Layout::kGcc12;
      b.record_words(kTagArcCounters, bytes ? n * 8 : n * 2, {11, 0, 22, 0, 33});  // two and a half counters
      const DataFile df = expect_data(read_data(b.bytes()));
      ASSERT_TRUE(df.error);
      ASSERT_EQ(df.records.size(), 3u);
      const DataRecord& c = df.records[2];
      EXPECT_TRUE(c.cut_short);
      EXPECT_EQ(c.num_counters, n);
      EXPECT_EQ(c.counters, (std::vector<int64_t>{11, 22}));
      EXPECT_EQ(c.counters_missing, n - 2);
    }
}

TEST(GcdaReader, StrayBytesAndMissingLength) {
  GcovImageBuilder b(Layout::kGcc12);
  b.data_header(5);
  size_t at = b.size();
  b.raw("abc");
  const DataFile df = expect_data(read_data(b.bytes()));
  ASSERT_TRUE(df.error);
  EXPECT_EQ(df.error->offset, at);
  EXPECT_NE(df.error->message.find("3 stray bytes"), std::string::npos) << df.error->message;

  GcovImageBuilder c(Layout::kGcc12);
  c.data_header(5).word(kTagFunction);
  const DataFile dc = expect_data(read_data(c.bytes()));
  ASSERT_TRUE(dc.error);
  EXPECT_NE(dc.error->message.find("no length word"), std::string::npos) << dc.error->message;
  // gcov reads the length as 0: a placeholder.
  ASSERT_EQ(dc.records.size(), 1u);
  EXPECT_TRUE(dc.records[0].cut_short);
  EXPECT_TRUE(dc.records[0].placeholder);
}

TEST(GcdaReader, SummaryTooShort) {
  GcovImageBuilder b(Layout::kGcc12);
  b.data_header(5);
  size_t at = b.size();
  b.record_words(kTagObjectSummary, 4, {1});
  const DataFile df = expect_data(read_data(b.bytes()));
  ASSERT_TRUE(df.error);
  EXPECT_EQ(df.error->offset, at);
  EXPECT_NE(df.error->message.find("object summary record too short"), std::string::npos);
}

TEST(GcdaReader, FunctionRecordOfOtherLengthsHasNoIds) {
  GcovImageBuilder b(Layout::kGcc12);
  b.data_header(5);
  b.record_words(kTagFunction, 4, {7});
  b.record_words(kTagFunction, 16, {7, 8, 9, 10});
  const DataFile df = expect_data(read_data(b.bytes()));
  EXPECT_FALSE(df.error);
  ASSERT_EQ(df.records.size(), 2u);
  EXPECT_FALSE(df.records[0].has_ids);
  EXPECT_FALSE(df.records[0].placeholder);
  EXPECT_FALSE(df.records[1].has_ids);
  EXPECT_FALSE(df.records[1].placeholder);
}

TEST(GcdaReader, CounterRecordWithHalfACounter) {
  GcovImageBuilder b(Layout::kGcc12);
  b.data_header(5);
  b.record_words(kTagArcCounters, 12, {5, 0, 9});
  b.summary(1, 2);
  const DataFile df = expect_data(read_data(b.bytes()));
  EXPECT_FALSE(df.error);
  ASSERT_EQ(df.records.size(), 2u);
  EXPECT_EQ(df.records[0].num_counters, 1u);
  EXPECT_EQ(df.records[0].counters, (std::vector<int64_t>{5}));
  EXPECT_EQ(df.records[1].kind, Kind::kSummary);  // the payload was skipped whole
}

TEST(GcdaReader, HugeNegativeArcCounterLengthIsJustANumber) {
  for (auto layout : {Layout::kGcc12, Layout::kGcc11}) {
    GcovImageBuilder b(layout);
    b.data_header(5);
    b.record_words(kTagArcCounters, 0x80000000u, {});
    b.summary(1, 2);
    const DataFile df = expect_data(read_data(b.bytes()));
    EXPECT_FALSE(df.error);
    ASSERT_EQ(df.records.size(), 2u);
    EXPECT_TRUE(df.records[0].all_zero);
    EXPECT_TRUE(df.records[0].counters.empty());
    EXPECT_EQ(df.records[1].kind, Kind::kSummary);
  }
}

// GCC 12 writes every all-zero counter record, not only the arc counters, in
// the negative-length form (e.g. the time profiler of a function never called
// with -fprofile-generate). Such a record has no payload: the reader must not
// read the record after it as counters, nor allocate for the claimed length.
TEST(GcdaReader, AllZeroNonArcCountersHaveNoPayload) {
  GcovImageBuilder b(Layout::kGcc12);
  b.data_header(5);
  b.data_function(1, 2, 3);
  b.word(0x01af0000).word(uint32_t(-8));  // time profiler, 1 counter, all zero
  size_t next = b.size();
  b.counters({42});
  const DataFile df = expect_data(read_data(b.bytes()));
  EXPECT_FALSE(df.error);
  ASSERT_EQ(df.records.size(), 3u);
  EXPECT_EQ(df.records[1].tag, 0x01af0000u);
  EXPECT_TRUE(df.records[1].words.empty()) << "read " << df.records[1].words.size() << " words past a record with no payload";
  EXPECT_EQ(df.records[2].offset, next);
  EXPECT_EQ(df.records[2].counters, (std::vector<int64_t>{42}));
}

// ArcCounts: an ident's count, the first of equal idents winning (a hostile
// notes file may repeat one), nothing for an ident the notes do not have.
TEST(GcdaReader, ArcCountsFindsTheFirstOfEqualIdents) {
  const ArcCounts counts({{7, 3}, {2, 5}, {7, 9}, {0xffffffffu, 1}, {2, 6}});
  ASSERT_NE(counts.find(7), nullptr);
  EXPECT_EQ(*counts.find(7), 3u);
  ASSERT_NE(counts.find(2), nullptr);
  EXPECT_EQ(*counts.find(2), 5u);
  ASSERT_NE(counts.find(0xffffffffu), nullptr);
  EXPECT_EQ(*counts.find(0xffffffffu), 1u);
  EXPECT_EQ(counts.find(0), nullptr);
  EXPECT_EQ(counts.find(3), nullptr);
  EXPECT_EQ(ArcCounts({}).find(0), nullptr);
}

// With the notes' arc counts given, a function's arc counters are decoded
// only when the notes have it with that many (gcov's rule); other counter
// records keep their length only.
TEST(GcdaReader, ArcCountersDecodedOnlyForTheNotesCount) {
  GcovImageBuilder b(Layout::kGcc12);
  b.data_header(5);
  b.data_function(1, 2, 3);
  b.counters({10, 20});
  b.data_function(4, 2, 3);
  b.counters({30, 40, 50});
  b.data_function(8, 2, 3);
  b.counters({60});
  const ArcCounts counts({{1, 2}, {4, 2}, {1, 7}});  // 4: another count; 8: not in the notes
  DataReadLimits limits;
  limits.arcs_by_function = &counts;
  limits.everything = false;
  const DataFile df = expect_data(read_data(b.bytes(), limits));
  EXPECT_FALSE(df.error);
  ASSERT_EQ(df.records.size(), 6u);
  EXPECT_EQ(df.records[1].counters, (std::vector<int64_t>{10, 20}));
  EXPECT_TRUE(df.records[3].counters.empty());
  EXPECT_EQ(df.records[3].num_counters, 3u);
  EXPECT_TRUE(df.records[5].counters.empty());
  EXPECT_EQ(df.records[5].num_counters, 1u);
}

// --- real files ---------------------------------------------------------------

// Facts from `gcov-dump -l` of kKnownProgram's data file: main's 7 arc
// counters are 1 (entry), 10, 10 (the sq loop), 3, 12 (the one-line loops:
// 3 outer and 3*4 inner iterations), 0, 0 (never taken); sq ran 10 times.
void check_known_data(const DataFile& df, const testing::CompiledProgram& p, int major) {
  EXPECT_FALSE(df.error) << df.error->message;
  EXPECT_EQ(df.version.major, major);
  ASSERT_EQ(df.records.size(), 7u);
  EXPECT_EQ(df.records[0].kind, Kind::kSummary);
  EXPECT_EQ(df.records[0].runs, 1u);
  EXPECT_EQ(df.records[0].sum_max, 12u);

  auto notes = read_notes(p.gcno);
  ASSERT_TRUE(notes.has_value());
  const NotesFile& nf = (*notes);
  EXPECT_EQ(df.stamp, nf.stamp);
  ASSERT_EQ(nf.functions.size(), 3u);
  for (int i = 0; i < 3; ++i) {
    const DataRecord& fr = df.records[1 + 2 * i];
    EXPECT_EQ(fr.kind, Kind::kFunction);
    EXPECT_TRUE(fr.has_ids);
    EXPECT_EQ(fr.ident, nf.functions[i].ident);
    EXPECT_EQ(fr.lineno_checksum, nf.functions[i].lineno_checksum);
    EXPECT_EQ(fr.cfg_checksum, nf.functions[i].cfg_checksum);
    EXPECT_EQ(df.records[2 + 2 * i].kind, Kind::kCounters);
  }
  EXPECT_EQ(df.records[2].counters, (std::vector<int64_t>{1, 10, 10, 3, 12, 0, 0}));
  EXPECT_EQ(df.records[4].counters, (std::vector<int64_t>{10}));
  // GCC 11 and 12 both write never()'s all-zero counters with a negative
  // length and no payload (-8 bytes / -2 words).
  const DataRecord& never = df.records[6];
  EXPECT_EQ(never.num_counters, 1u);
  EXPECT_TRUE(never.all_zero);
  EXPECT_TRUE(never.counters.empty());
  EXPECT_EQ(int32_t(never.length), major >= 12 ? -8 : -2);
}

TEST(GcdaReaderReal, Gcc12) {
  COVKIT_REQUIRE_PROGRAM(p, "gcc-12");
  auto r = read_data(p.gcda);
  ASSERT_TRUE(r.has_value());
  EXPECT_FALSE((*r).swapped);
  check_known_data((*r), p, 12);
}

TEST(GcdaReaderReal, Gcc11) {
  COVKIT_REQUIRE_PROGRAM(p, "gcc-11");
  auto r = read_data(p.gcda);
  ASSERT_TRUE(r.has_value());
  check_known_data((*r), p, 11);
}

TEST(GcdaReaderReal, BigEndianParsesIdentically) {
  for (const char* cc : {"gcc-12", "gcc-11"}) {
    std::string why;
    auto p = testing::compile_known_program(cc, &why);
    if (!p) GTEST_SKIP() << why;
    auto swapped = testing::swap_words(p->gcda);  // data files hold only words
    auto r = read_data(swapped);
    ASSERT_TRUE(r.has_value()) << cc;
    const DataFile& df = (*r);
    EXPECT_TRUE(df.swapped);
    check_known_data(df, *p, cc == std::string("gcc-12") ? 12 : 11);
  }
}

TEST(GcdaReaderReal, AgreesWithGcovDump12) {
  COVKIT_REQUIRE_PROGRAM(p, "gcc-12");
  if (!testing::have_program("gcov-dump-12")) GTEST_SKIP() << "gcov-dump-12 is not installed";
  std::string dump;
  ASSERT_EQ(testing::run_command("gcov-dump-12 -l '" + p.gcda_path + "'", &dump), 0) << dump;
  EXPECT_NE(dump.find("OBJECT_SUMMARY runs=1, sum_max=12"), std::string::npos) << dump;
  EXPECT_NE(dump.find("COUNTERS arcs 7 counts"), std::string::npos) << dump;
  EXPECT_NE(dump.find("0: 1 10 10 3 12 0 0 "), std::string::npos) << dump;
  EXPECT_NE(dump.find("COUNTERS arcs 1 counts (all zero)"), std::string::npos) << dump;
  auto r = read_data(p.gcda);
  ASSERT_TRUE(r.has_value());
  const DataFile& df = (*r);
  EXPECT_NE(dump.find("stamp " + std::to_string(df.stamp) + "\n"), std::string::npos);
  EXPECT_NE(dump.find("checksum " + std::to_string(df.checksum) + "\n"), std::string::npos);
}

}  // namespace
}  // namespace covkit::format
