// model/data_merge: adding .gcda files as libgcov and gcov-tool do, on
// DataFile values built here (no compiler needed).
#include "model/data_merge.h"

#include <gtest/gtest.h>

#include "format/gcda_reader.h"
#include "format/gcda_writer.h"
#include "format/gcov_tags.h"

namespace covkit::model {
namespace gcda_merge_test {

using format::DataFile;
using format::DataRecord;
using Kind = DataRecord::Kind;

constexpr uint32_t kCounterTag(uint32_t kind) { return format::kTagCounterBase + (kind << 17); }

DataRecord summary(uint32_t runs, uint32_t sum_max) {
  DataRecord r;
  r.kind = Kind::kSummary;
  r.tag = format::kTagObjectSummary;
  r.runs = runs;
  r.sum_max = sum_max;
  return r;
}

DataRecord function(uint32_t ident, uint32_t lineno = 0x1111, uint32_t cfg = 0x2222) {
  DataRecord r;
  r.kind = Kind::kFunction;
  r.tag = format::kTagFunction;
  r.has_ids = true;
  r.ident = ident;
  r.lineno_checksum = lineno;
  r.cfg_checksum = cfg;
  return r;
}

DataRecord placeholder() {
  DataRecord r;
  r.kind = Kind::kFunction;
  r.tag = format::kTagFunction;
  r.placeholder = true;
  return r;
}

DataRecord counters(std::vector<int64_t> values, uint32_t kind = 0) {
  DataRecord r;
  r.kind = Kind::kCounters;
  r.tag = kCounterTag(kind);
  r.num_counters = uint32_t(values.size());
  r.counters = std::move(values);
  return r;
}

DataRecord zero_counters(uint32_t n, uint32_t kind = 0) {
  DataRecord r;
  r.kind = Kind::kCounters;
  r.tag = kCounterTag(kind);
  r.num_counters = n;
  r.all_zero = true;
  return r;
}

DataFile file(std::vector<DataRecord> records, int gcc = 12) {
  DataFile f;
  f.version = format::GcovVersion::from_gcc(gcc, 2);
  f.stamp = 0xabcd0001;
  f.checksum = gcc >= 12 ? 0x5eed : 0;
  f.records = std::move(records);
  return f;
}

DataFile must_merge(const DataFile& a, const DataFile& b) {
  auto m = merge_data(a, b);
  EXPECT_TRUE(m) << m.error().message;
  return m ? *m : DataFile{};
}

std::string merge_error(const DataFile& a, const DataFile& b) {
  auto m = merge_data(a, b);
  EXPECT_FALSE(m);
  return m ? "" : m.error().message;
}

TEST(DataMerge, AddsCountersAndSummary) {
  DataFile a = file({summary(1, 5), function(1), counters({1, 2, 3}), function(2), counters({7})});
  DataFile b = file({summary(2, 100), function(1), counters({10, 0, 30}), function(2), counters({0})});
  DataFile m = must_merge(a, b);
  ASSERT_EQ(m.records.size(), 5u);
  EXPECT_EQ(m.records[0].runs, 3u);
  EXPECT_EQ(m.records[0].sum_max, 105u);  // a sum of per-run maxima, as libgcov and gcov-tool keep it
  EXPECT_EQ(m.records[2].counters, (std::vector<int64_t>{11, 2, 33}));
  EXPECT_EQ(m.records[4].counters, (std::vector<int64_t>{7}));
  EXPECT_EQ(m.stamp, a.stamp);
  EXPECT_EQ(m.checksum, a.checksum);
}

TEST(DataMerge, CounterAndSummaryAdditionWraps) {
  DataFile a = file({summary(0xffffffffu, 0xfffffff0u), function(1), counters({-1, INT64_MAX})});
  DataFile b = file({summary(2, 0x20), function(1), counters({2, 1})});
  DataFile m = must_merge(a, b);
  EXPECT_EQ(m.records[0].runs, 1u);
  EXPECT_EQ(m.records[0].sum_max, 0x10u);
  EXPECT_EQ(m.records[2].counters, (std::vector<int64_t>{1, INT64_MIN}));
}

TEST(DataMerge, AllZeroRecordsStayCompactAndAdd) {
  DataFile a = file({summary(1, 0), function(1), zero_counters(3), function(2), zero_counters(2)});
  DataFile b = file({summary(1, 4), function(1), counters({0, 4, 0}), function(2), zero_counters(2)});
  DataFile m = must_merge(a, b);
  EXPECT_FALSE(m.records[2].all_zero);
  EXPECT_EQ(m.records[2].counters, (std::vector<int64_t>{0, 4, 0}));
  EXPECT_TRUE(m.records[4].all_zero);
  EXPECT_EQ(m.records[4].num_counters, 2u);
  // Written counters that sum to zero are compacted as GCC >= 11's libgcov does.
  DataFile c = file({summary(1, 0), function(1), counters({0, 0, 0}), function(2), counters({0, 0})});
  DataFile z = must_merge(c, c);
  EXPECT_TRUE(z.records[2].all_zero);
  EXPECT_EQ(z.records[2].num_counters, 3u);
}

TEST(DataMerge, GccElevenAndLaterCompactButOlderDoNot) {
  DataFile a = file({summary(1, 0), function(1), counters({0, 0})}, 10);
  DataFile m = must_merge(a, a);
  EXPECT_FALSE(m.records[2].all_zero);
  EXPECT_EQ(m.records[2].counters, (std::vector<int64_t>{0, 0}));
}

TEST(DataMerge, CounterKindsFollowTheirMergeFunctions) {
  // ior (6) ORs, time_profiler (7) keeps the smallest non-zero, interval (1) adds.
  DataFile a = file({summary(1, 1), function(1), counters({1}), counters({4, 2}, 1), counters({0b0101}, 6),
                     counters({0, 5, 3, 0}, 7)});
  DataFile b = file({summary(1, 1), function(1), counters({1}), counters({1, 1}, 1), counters({0b0011}, 6),
                     counters({2, 7, 0, 0}, 7)});
  DataFile m = must_merge(a, b);
  EXPECT_EQ(m.records[3].counters, (std::vector<int64_t>{5, 3}));
  EXPECT_EQ(m.records[4].counters, (std::vector<int64_t>{0b0111}));
  EXPECT_EQ(m.records[5].counters, (std::vector<int64_t>{2, 5, 3, 0}));
}

TEST(DataMerge, ConditionBitsetsOrFromGcc14) {
  DataFile a = file({summary(1, 1), function(1), counters({1}), counters({0b01, 0b10}, 8)}, 14);
  DataFile b = file({summary(1, 1), function(1), counters({1}), counters({0b10, 0b10}, 8)}, 14);
  EXPECT_EQ(must_merge(a, b).records[3].counters, (std::vector<int64_t>{0b11, 0b10}));
}

TEST(DataMerge, ValueProfilesAreRefused) {
  DataFile a = file({summary(1, 1), function(1), counters({1}), counters({3, 1, 42, 3}, 3)});
  EXPECT_NE(merge_error(a, a).find("value profile"), std::string::npos);
}

TEST(DataMerge, PlaceholderTakesTheOtherProgramsFunction) {
  DataFile a = file({summary(1, 1), placeholder(), function(2), counters({1})});
  DataFile b = file({summary(1, 1), function(9), counters({5, 6}), function(2), counters({1})});
  DataFile m = must_merge(a, b);
  ASSERT_EQ(m.records.size(), 5u);
  EXPECT_EQ(m.records[1].ident, 9u);
  EXPECT_EQ(m.records[2].counters, (std::vector<int64_t>{5, 6}));
  EXPECT_EQ(m.records[4].counters, (std::vector<int64_t>{2}));
  DataFile back = must_merge(b, a);
  EXPECT_EQ(back.records[1].ident, 9u);
  EXPECT_TRUE(must_merge(a, a).records[1].placeholder);
}

TEST(DataMerge, DifferentBuildsAreErrors) {
  DataFile a = file({summary(1, 1), function(1), counters({1, 2})});
  DataFile stamp = a;
  stamp.stamp = 0x99;
  EXPECT_NE(merge_error(a, stamp).find("stamps differ"), std::string::npos);
  DataFile checksum = a;
  checksum.checksum = 0x77;
  EXPECT_NE(merge_error(a, checksum).find("checksums differ"), std::string::npos);
  DataFile cfg = file({summary(1, 1), function(1, 0x1111, 0x3333), counters({1, 2})});
  EXPECT_NE(merge_error(a, cfg).find("cfg checksum 0x00002222 vs 0x00003333"), std::string::npos);
  DataFile line = file({summary(1, 1), function(1, 0x4444), counters({1, 2})});
  EXPECT_NE(merge_error(a, line).find("line checksum"), std::string::npos);
  DataFile size = file({summary(1, 1), function(1), counters({1, 2, 3})});
  EXPECT_NE(merge_error(a, size).find("counter records differ"), std::string::npos);
  DataFile more = file({summary(1, 1), function(1), counters({1, 2}), function(2), counters({1})});
  EXPECT_NE(merge_error(a, more).find("different numbers of functions"), std::string::npos);
  DataFile older = a;
  older.version = format::GcovVersion::from_gcc(11, 3);
  EXPECT_NE(merge_error(a, older).find("different GCC versions"), std::string::npos);
  DataFile gcc8 = file({function(1), counters({1})}, 8);
  EXPECT_NE(merge_error(gcc8, gcc8).find("GCC 8"), std::string::npos);
  DataFile corrupt = a;
  corrupt.error = format::ParseError{12, "bad"};
  EXPECT_FALSE(merge_data(a, corrupt));
}

TEST(DataMerge, UnknownRecordsMustBeEqual) {
  DataRecord other;
  other.kind = Kind::kOther;
  other.tag = 0x01a70000 + 0x1000;
  other.words = {1, 2};
  DataFile a = file({summary(1, 1), other});
  EXPECT_EQ(must_merge(a, a).records[1].words, (std::vector<uint32_t>{1, 2}));
  DataFile b = a;
  b.records[1].words = {1, 3};
  EXPECT_NE(merge_error(a, b).find("does not know how to add"), std::string::npos);
}

// The bytes GCC 12's libgcov writes for two runs of one object, and the file
// `gcov-tool-12 merge` writes for them (captured from gcc-12 12.2 on x86-64).
std::vector<uint8_t> words_le(std::initializer_list<uint32_t> words) {
  std::vector<uint8_t> out;
  for (uint32_t w : words)
    for (int i = 0; i < 4; ++i) out.push_back(uint8_t(w >> (8 * i)));
  return out;
}

TEST(DataMerge, MatchesGcovToolOnGcc12Bytes) {
  auto run1 = words_le({0x67636461, 0x4232322a, 0x00df8642, 0x45168618, 0xa1000000, 8, 1, 5, 0x01000000, 12,
                        0x067072eb, 0x78a7eff9, 0xa2683807, 0x01a10000, 0x30, 1, 0, 1, 0, 5, 0, 5, 0, 0, 0, 0, 0,
                        0x01000000, 12, 0x6dd0eed3, 0x1e93a577, 0xdb5de9e8, 0x01a10000, 8, 5, 0, 0x01000000, 12,
                        0x5da4423b, 0x047b7580, 0xdb5de9e8, 0x01a10000, 0xfffffff8, 0});
  auto run2 = words_le({0x67636461, 0x4232322a, 0x00df8642, 0x45168618, 0xa1000000, 8, 1, 100, 0x01000000, 12,
                        0x067072eb, 0x78a7eff9, 0xa2683807, 0x01a10000, 0x30, 1, 0, 1, 0, 100, 0, 100, 0, 0, 0, 0,
                        0, 0x01000000, 12, 0x6dd0eed3, 0x1e93a577, 0xdb5de9e8, 0x01a10000, 8, 100, 0, 0x01000000,
                        12, 0x5da4423b, 0x047b7580, 0xdb5de9e8, 0x01a10000, 0xfffffff8, 0});
  auto ref = words_le({0x67636461, 0x4232322a, 0x00df8642, 0x45168618, 0xa1000000, 8, 2, 0x69, 0x01000000, 12,
                       0x067072eb, 0x78a7eff9, 0xa2683807, 0x01a10000, 0x30, 2, 0, 2, 0, 0x69, 0, 0x69, 0, 0, 0, 0,
                       0, 0x01000000, 12, 0x6dd0eed3, 0x1e93a577, 0xdb5de9e8, 0x01a10000, 8, 0x69, 0, 0x01000000,
                       12, 0x5da4423b, 0x047b7580, 0xdb5de9e8, 0x01a10000, 0xfffffff8, 0});
  auto a = format::read_data(run1), b = format::read_data(run2);
  ASSERT_TRUE(a.has_value());
  ASSERT_TRUE(b.has_value());
  DataFile m = must_merge((*a), (*b));
  EXPECT_EQ(format::write_data(m), ref);
  // A single run merged with nothing but zeros comes back byte for byte.
  DataFile zero = (*a);
  for (DataRecord& r : zero.records) {
    if (r.kind == Kind::kCounters) std::fill(r.counters.begin(), r.counters.end(), 0);
    if (r.kind == Kind::kSummary) r.runs = r.sum_max = 0;
  }
  EXPECT_EQ(format::write_data(must_merge((*a), zero)), run1);
}

}  // namespace
}  // namespace covkit::model
