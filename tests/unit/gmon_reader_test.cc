// format/gmon_reader: records of hand-built gmon.out bytes, and every
// truncation and corruption rejected with the offset of the fault.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "format/gmon_reader.h"

namespace gmon_reader_test {

using covkit::format::parse_gmon;

struct Bytes {
  std::vector<uint8_t> b;
  void u8(uint8_t v) { b.push_back(v); }
  void le(uint64_t v, int n) {
    for (int i = 0; i < n; ++i) b.push_back(i < 8 ? uint8_t(v >> (8 * i)) : 0);
  }
  void text(const char* s, size_t n) {
    for (size_t i = 0; i < n; ++i) b.push_back(i < std::strlen(s) ? uint8_t(s[i]) : 0);
  }
};

Bytes sample_file() {
  Bytes f;
  f.text("gmon", 4);
  f.le(1, 4);
  f.le(0, 12);
  f.u8(0);  // histogram: [0x1000, 0x1006), 3 buckets
  f.le(0x1000, 8);
  f.le(0x1006, 8);
  f.le(3, 4);
  f.le(100, 4);
  f.text("seconds", 15);
  f.u8('s');
  f.le(7, 2);
  f.le(0, 2);
  f.le(65535, 2);
  f.u8(1);  // arc
  f.le(0x1004, 8);
  f.le(0x1000, 8);
  f.le(42, 4);
  f.u8(2);  // two block counts
  f.le(2, 4);
  f.le(0x1001, 8);
  f.le(5, 8);
  f.le(0x1003, 8);
  f.le(1ull << 40, 8);
  f.u8(1);  // a second arc
  f.le(0x1002, 8);
  f.le(0x1004, 8);
  f.le(0xffffffff, 4);
  return f;
}

TEST(GmonReader, ReadsEveryRecordInFileOrder) {
  Bytes f = sample_file();
  auto g = parse_gmon(f.b);
  ASSERT_TRUE(g) << g.error().describe();
  EXPECT_EQ(g->version, 1u);
  ASSERT_EQ(g->histograms.size(), 1u);
  const auto& h = g->histograms[0];
  EXPECT_EQ(h.low_pc, 0x1000u);
  EXPECT_EQ(h.high_pc, 0x1006u);
  EXPECT_EQ(h.prof_rate, 100u);
  EXPECT_EQ(h.dimension, "seconds");
  EXPECT_EQ(h.dimension_abbrev, 's');
  EXPECT_EQ(h.buckets, (std::vector<uint16_t>{7, 0, 65535}));
  EXPECT_EQ(h.offset, 20u);
  ASSERT_EQ(g->arcs.size(), 2u);
  EXPECT_EQ(g->arcs[0].from_pc, 0x1004u);
  EXPECT_EQ(g->arcs[0].self_pc, 0x1000u);
  EXPECT_EQ(g->arcs[0].count, 42u);
  EXPECT_EQ(g->arcs[1].count, 0xffffffffu);
  ASSERT_EQ(g->block_counts.size(), 2u);
  EXPECT_EQ(g->block_counts[1].address, 0x1003u);
  EXPECT_EQ(g->block_counts[1].count, 1ull << 40);
}

TEST(GmonReader, HeaderOnlyIsAnEmptyProfile) {
  Bytes f = sample_file();
  f.b.resize(20);
  auto g = parse_gmon(f.b);
  ASSERT_TRUE(g);
  EXPECT_TRUE(g->histograms.empty() && g->arcs.empty() && g->block_counts.empty());
}

TEST(GmonReader, EveryTruncationIsAnErrorWithAnOffsetInsideTheFile) {
  Bytes f = sample_file();
  // Record boundaries: a cut there is a shorter, valid file.
  const std::vector<size_t> boundaries = {20, 67, 88, 125, 146};
  for (size_t cut = 0; cut < f.b.size(); ++cut) {
    std::vector<uint8_t> part(f.b.begin(), f.b.begin() + long(cut));
    auto g = parse_gmon(part);
    bool boundary = std::find(boundaries.begin(), boundaries.end(), cut) != boundaries.end();
    EXPECT_EQ(bool(g), boundary) << "cut at " << cut;
    if (!g) {
      ASSERT_TRUE(g.error().offset) << "cut at " << cut;
      EXPECT_LE(*g.error().offset, cut) << "cut at " << cut;
    }
  }
}

TEST(GmonReader, WrongMagicVersionOrTag) {
  Bytes f = sample_file();
  auto magic = f.b;
  magic[0] = 'G';
  auto g = parse_gmon(magic);
  ASSERT_FALSE(g);
  EXPECT_EQ(*g.error().offset, 0u);
  EXPECT_NE(g.error().message.find("magic"), std::string::npos);

  auto version = f.b;
  version[4] = 9;
  g = parse_gmon(version);
  ASSERT_FALSE(g);
  EXPECT_EQ(*g.error().offset, 4u);

  auto tag = f.b;
  tag.push_back(3);
  g = parse_gmon(tag);
  ASSERT_FALSE(g);
  EXPECT_EQ(*g.error().offset, f.b.size());
  EXPECT_NE(g.error().message.find("tag 3"), std::string::npos);
}

TEST(GmonReader, HugeCountsAreRefusedWithoutAllocating) {
  Bytes f;
  f.text("gmon", 4);
  f.le(1, 4);
  f.le(0, 12);
  f.u8(0);
  f.le(0, 8);
  f.le(0x100000000ull, 8);
  f.le(0xffffffff, 4);  // 4 G buckets announced, none present
  f.le(100, 4);
  f.text("seconds", 15);
  f.u8('s');
  auto g = parse_gmon(f.b);
  ASSERT_FALSE(g);
  EXPECT_NE(g.error().message.find("4294967295 buckets"), std::string::npos);

  Bytes b;
  b.text("gmon", 4);
  b.le(1, 4);
  b.le(0, 12);
  b.u8(2);
  b.le(0xffffffff, 4);
  g = parse_gmon(b.b);
  ASSERT_FALSE(g);
  EXPECT_EQ(*g.error().offset, 25u);
}

// gprof reads a histogram whose high pc is below its low pc, or that has
// no buckets, and prints a report (its samples credit no function): the
// reader returns such records as written.
TEST(GmonReader, HighPcBelowLowPcIsReadAsWritten) {
  Bytes f = sample_file();
  f.b[21 + 9] = 0;  // high pc 0x0006 < low pc 0x1000
  auto g = parse_gmon(f.b);
  ASSERT_TRUE(g) << g.error().describe();
  ASSERT_EQ(g->histograms.size(), 1u);
  EXPECT_EQ(g->histograms[0].low_pc, 0x1000u);
  EXPECT_EQ(g->histograms[0].high_pc, 0x0006u);
  EXPECT_EQ(g->histograms[0].buckets.size(), 3u);
  EXPECT_EQ(g->arcs.size(), 2u);
}

TEST(GmonReader, HistogramWithNoBuckets) {
  Bytes f = sample_file();
  f.b[37] = 0;  // 0 buckets, and the 3 buckets' 6 bytes gone
  f.b.erase(f.b.begin() + 61, f.b.begin() + 67);
  auto g = parse_gmon(f.b);
  ASSERT_TRUE(g) << g.error().describe();
  ASSERT_EQ(g->histograms.size(), 1u);
  EXPECT_TRUE(g->histograms[0].buckets.empty());
  EXPECT_EQ(g->arcs.size(), 2u);
  EXPECT_EQ(g->block_counts.size(), 2u);
}

}  // namespace
