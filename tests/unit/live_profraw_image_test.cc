// live/profraw_image: the .profraw built from a process image made by hand
// reads back as the runtime's would (clang/profraw_reader), and damaged or
// hostile sections are refused in one line.
#include "live/profraw_image.h"

#include <gtest/gtest.h>

#include <cstring>
#include <map>

#include "clang/profraw_reader.h"
#include "clang_image_builder.h"
#include "util/md5.h"

namespace covkit::live {
namespace live_profraw_image_test {

// A module's memory: data, counters and names at fixed places, a heap for
// value nodes outside the module.
class FakeProcess : public MemorySource {
 public:
  Expected<void> read(uint64_t address, void* out, size_t len) const override {
    for (const auto& [start, bytes] : blocks)
      if (address >= start && address + len <= start + bytes.size()) {
        std::memcpy(out, bytes.data() + (address - start), len);
        return {};
      }
    return Error("unmapped");
  }
  std::map<uint64_t, std::vector<uint8_t>> blocks;
};

constexpr uint64_t kData = 0x10000, kCounters = 0x11000, kNames = 0x8000, kHeap = 0x90000;

void put(std::vector<uint8_t>& v, size_t at, const void* p, size_t n) {
  if (v.size() < at + n) v.resize(at + n);
  std::memcpy(v.data() + at, p, n);
}

struct Fixture {
  FakeProcess memory;
  ProfileSections sections;
  ModuleBounds bounds{{{0x8000, 0x9000, false, false}, {0x10000, 0x12000, true, false}}};
};

// Two functions, 2 and 3 counters; version 8 (relative counter pointers)
// or 7 (absolute); `sites`: the second function has 2 indirect-call sites,
// the first with two values.
Fixture make(unsigned version, bool sites = false) {
  Fixture f;
  std::vector<uint8_t> data, counters, names = testing::names_blob({"main", "helper"}, false);
  const char* fn[] = {"main", "helper"};
  const uint32_t ncount[] = {2, 3};
  uint64_t counter_at = kCounters;
  for (int i = 0; i < 2; ++i) {
    const size_t at = size_t(i) * 48;
    uint64_t ref = util::md5_low64(fn[i]), hash = 0x1234 + uint64_t(i);
    uint64_t ptr = version >= 8 ? counter_at - (kData + at) : counter_at;
    uint64_t fptr = 0x1000 + uint64_t(i), values = (sites && i == 1) ? kHeap : 0;
    uint16_t vs[2] = {uint16_t((sites && i == 1) ? 2 : 0), 0};
    put(data, at, &ref, 8);
    put(data, at + 8, &hash, 8);
    put(data, at + 16, &ptr, 8);
    put(data, at + 24, &fptr, 8);
    put(data, at + 32, &values, 8);
    put(data, at + 40, &ncount[i], 4);
    put(data, at + 44, vs, 4);
    counter_at += ncount[i] * 8;
  }
  for (uint64_t c = 0; c < 5; ++c) {
    uint64_t v = 10 + c;
    put(counters, c * 8, &v, 8);
  }
  f.memory.blocks[kData] = data;
  f.memory.blocks[kCounters] = counters;
  f.memory.blocks[kNames] = names;
  if (sites) {
    // heads[2] at kHeap, then nodes {value, count, next}.
    std::vector<uint8_t> heap;
    uint64_t words[] = {kHeap + 16, 0, 0x4001, 7, kHeap + 40, 0x4002, 3, 0};
    put(heap, 0, words, sizeof words);
    f.memory.blocks[kHeap] = heap;
  }
  f.sections = {version, kData, data.size(), kCounters, counters.size(), kNames, names.size(), {{0xab, 0xcd, 0xef}}};
  return f;
}

TEST(LiveProfrawImage, Version8ReadsBackWithItsCountsAndBuildId) {
  Fixture f = make(8);
  ASSERT_TRUE(check_profile_sections(f.sections, f.bounds));
  auto image = build_profraw(f.sections, f.memory);
  ASSERT_TRUE(image) << image.error().message;
  EXPECT_EQ(image->records, 2u);
  EXPECT_EQ(image->counters, 5u);
  auto read = clang::read_profraw(image->bytes);
  ASSERT_TRUE(read) << read.error().message;
  ASSERT_EQ(read->size(), 1u);
  const clang::RawProfile& p = read->front();
  EXPECT_EQ(p.version, 8u);
  ASSERT_EQ(p.binary_ids.size(), 1u);
  EXPECT_EQ(p.binary_ids[0], "abcdef");
  ASSERT_EQ(p.functions.size(), 2u);
  EXPECT_EQ(p.functions[0].name, "main");
  EXPECT_EQ(p.functions[0].counts, (std::vector<uint64_t>{10, 11}));
  EXPECT_EQ(p.functions[1].name, "helper");
  EXPECT_EQ(p.functions[1].counts, (std::vector<uint64_t>{12, 13, 14}));
  // CountersDelta: the counters relative to the data (version 8).
  uint64_t delta = 0;
  std::memcpy(&delta, image->bytes.data() + 64, 8);
  EXPECT_EQ(delta, kCounters - kData);
}

TEST(LiveProfrawImage, Version7HasAbsoluteCountersAndNoBuildIds) {
  Fixture f = make(7);
  auto image = build_profraw(f.sections, f.memory);
  ASSERT_TRUE(image) << image.error().message;
  auto read = clang::read_profraw(image->bytes);
  ASSERT_TRUE(read) << read.error().message;
  EXPECT_TRUE(read->front().binary_ids.empty());
  EXPECT_EQ(read->front().functions[1].counts, (std::vector<uint64_t>{12, 13, 14}));
  uint64_t delta = 0;
  std::memcpy(&delta, image->bytes.data() + 64, 8);
  EXPECT_EQ(delta, kCounters);
}

TEST(LiveProfrawImage, ValueSitesAreWrittenAsTheRuntimeSerialisesThem) {
  Fixture f = make(8, true);
  auto image = build_profraw(f.sections, f.memory);
  ASSERT_TRUE(image) << image.error().message;
  EXPECT_EQ(image->value_sites, 2u);
  auto read = clang::read_profraw(image->bytes);
  ASSERT_TRUE(read) << read.error().message;
  // The last bytes: total size, one kind, kind 0 with 2 sites counting 2
  // and 0 values, padding to 8, then the two (value, count) pairs.
  const std::vector<uint8_t>& b = image->bytes;
  const size_t total = 8 + 8 + 8 + 2 * 16;
  ASSERT_GE(b.size(), total);
  const uint8_t* v = b.data() + b.size() - total;
  uint32_t words[4];
  std::memcpy(words, v, 16);
  EXPECT_EQ(words[0], total);
  EXPECT_EQ(words[1], 1u);
  EXPECT_EQ(words[2], 0u);
  EXPECT_EQ(words[3], 2u);
  EXPECT_EQ(v[16], 2);
  EXPECT_EQ(v[17], 0);
  uint64_t pairs[4];
  std::memcpy(pairs, v + 24, 32);
  EXPECT_EQ(pairs[0], 0x4001u);
  EXPECT_EQ(pairs[1], 7u);
  EXPECT_EQ(pairs[2], 0x4002u);
  EXPECT_EQ(pairs[3], 3u);
}

TEST(LiveProfrawImage, ACycleOfValueNodesStopsAt255) {
  Fixture f = make(8, true);
  std::vector<uint8_t>& heap = f.memory.blocks[kHeap];
  uint64_t self = kHeap + 40;  // the second node points at itself
  std::memcpy(heap.data() + 56, &self, 8);
  auto image = build_profraw(f.sections, f.memory);
  ASSERT_TRUE(image) << image.error().message;
  auto read = clang::read_profraw(image->bytes);
  ASSERT_TRUE(read) << read.error().message;
}

TEST(LiveProfrawImage, HostileSectionsAreRefusedInOneLine) {
  {
    Fixture f = make(8);
    f.sections.data_size = 50;
    auto r = check_profile_sections(f.sections, f.bounds);
    ASSERT_FALSE(r);
    EXPECT_NE(r.error().message.find("no whole number of 48-byte records"), std::string::npos) << r.error().message;
  }
  {
    Fixture f = make(8);
    f.sections.counters_size = 0x100000;  // past the module
    auto r = check_profile_sections(f.sections, f.bounds);
    ASSERT_FALSE(r);
    EXPECT_NE(r.error().message.find("__llvm_prf_cnts"), std::string::npos) << r.error().message;
  }
  {
    Fixture f = make(8);
    f.sections.names = 0x10000;  // fine, but the counters must be writable
    f.sections.counters = 0x8000;
    auto r = check_profile_sections(f.sections, f.bounds);
    ASSERT_FALSE(r);
    EXPECT_NE(r.error().message.find("writable"), std::string::npos) << r.error().message;
  }
  {
    Fixture f = make(9);
    auto r = check_profile_sections(f.sections, f.bounds);
    ASSERT_FALSE(r);
    EXPECT_NE(r.error().message.find("version 9"), std::string::npos) << r.error().message;
  }
  {
    // A record whose counters lie past the section.
    Fixture f = make(8);
    uint32_t many = 1000;
    std::memcpy(f.memory.blocks[kData].data() + 48 + 40, &many, 4);
    ASSERT_TRUE(check_profile_sections(f.sections, f.bounds));
    auto r = build_profraw(f.sections, f.memory);
    ASSERT_FALSE(r);
    EXPECT_NE(r.error().message.find("data record 1"), std::string::npos) << r.error().message;
    EXPECT_EQ(r.error().message.find('\n'), std::string::npos);
  }
  {
    // A value site array that cannot be read.
    Fixture f = make(8, true);
    f.memory.blocks.erase(kHeap);
    auto r = build_profraw(f.sections, f.memory);
    ASSERT_FALSE(r);
    EXPECT_NE(r.error().message.find("value sites"), std::string::npos) << r.error().message;
  }
}

}  // namespace live_profraw_image_test
}  // namespace covkit::live
