// clang/profraw_reader, profdata_reader/_writer, profile_counts: raw
// profiles of every shape clang 13-16 write, concatenated profiles, merging
// by llvm-profdata's rules, the indexed format written and read back, and
// damaged inputs (every truncation, hostile sizes) as errors with offsets.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <string>
#include <thread>
#include <vector>

#include "clang/clang_inputs.h"
#include "clang/profdata_reader.h"
#include "clang/profdata_writer.h"
#include "clang/profile_counts.h"
#include "clang/profile_names.h"
#include "clang/producer_version.h"
#include "clang/profraw_reader.h"
#include "clang_image_builder.h"

namespace covkit::clang {
namespace clang_profiles_test {

using testing::RawFunction;
using testing::RawOptions;

const std::vector<RawFunction> kFunctions = {
    {"main", 0x18, {1, 0, 7, 3}, 0},
    {"a.c:helper", 0x1234567890abcdefull, {5}, 0},
    {"_ZN3foo3barEv", 0, {0, 0}, 1},
};

struct Shape {
  unsigned version;
  bool big, ptr32, compressed;
};

class RawShapes : public ::testing::TestWithParam<Shape> {};

TEST_P(RawShapes, EveryRecordAndCounter) {
  const Shape s = GetParam();
  RawOptions o;
  o.version = s.version;
  o.big_endian = s.big;
  o.pointer32 = s.ptr32;
  o.compressed_names = s.compressed;
  o.binary_ids = {std::string("\x12\x34\xab", 3)};
  auto bytes = testing::raw_profile(kFunctions, o);
  ASSERT_TRUE(looks_like_profraw(bytes));
  auto r = read_profraw(bytes);
  ASSERT_TRUE(r) << r.error().describe();
  ASSERT_EQ(r->size(), 1u);
  const RawProfile& p = (*r)[0];
  EXPECT_EQ(p.version, s.version);
  EXPECT_EQ(p.big_endian, s.big);
  EXPECT_EQ(p.pointer_bytes, s.ptr32 ? 4u : 8u);
  EXPECT_EQ(p.binary_ids, std::vector<std::string>{"1234ab"});
  ASSERT_EQ(p.functions.size(), kFunctions.size());
  for (size_t i = 0; i < kFunctions.size(); ++i) {
    EXPECT_EQ(p.functions[i].name, kFunctions[i].name);
    EXPECT_EQ(p.functions[i].hash, kFunctions[i].hash);
    EXPECT_EQ(p.functions[i].counts, kFunctions[i].counts);
  }
}

INSTANTIATE_TEST_SUITE_P(Clang13To16, RawShapes,
                         ::testing::Values(Shape{7, false, false, false}, Shape{8, false, false, false},
                                           Shape{8, true, false, false}, Shape{7, true, false, true},
                                           Shape{8, false, true, true}, Shape{7, false, true, false},
                                           Shape{8, true, true, true}));

TEST(Profraw, ProfilesBackToBack) {
  auto one = testing::raw_profile({{"f", 1, {2}}});
  auto two = testing::raw_profile({{"g", 2, {3, 4}}});
  std::vector<uint8_t> both = one;
  both.insert(both.end(), 16, 0);  // zero padding between them
  both.insert(both.end(), two.begin(), two.end());
  auto r = read_profraw(both);
  ASSERT_TRUE(r) << r.error().describe();
  ASSERT_EQ(r->size(), 2u);
  EXPECT_EQ((*r)[1].functions[0].name, "g");
  EXPECT_EQ((*r)[1].functions[0].counts, (std::vector<uint64_t>{3, 4}));
  // Garbage after a profile is an error at its offset.
  std::vector<uint8_t> junk = one;
  junk.insert(junk.end(), {1, 2, 3, 4, 5, 6, 7, 8});
  auto bad = read_profraw(junk);
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().offset, one.size());
}

TEST(Profraw, EveryTruncationIsAnError) {
  auto bytes = testing::raw_profile(kFunctions);
  for (size_t n = 0; n < bytes.size(); ++n) {
    std::vector<uint8_t> cut(bytes.begin(), bytes.begin() + long(n));
    auto r = read_profraw(cut);
    // Cutting in the trailing value record or padding may still leave a
    // readable profile only when nothing counted is lost.
    if (r) {
      ASSERT_GE(n, bytes.size() - 16) << "cut at " << n;
      continue;
    }
    if (r.error().offset) {
      EXPECT_LE(*r.error().offset, bytes.size());
    }
  }
}

TEST(Profraw, HostileHeaders) {
  auto bytes = testing::raw_profile(kFunctions);
  auto with_word = [&](size_t word, uint64_t v) {
    auto b = bytes;
    for (int i = 0; i < 8; ++i) b[word * 8 + size_t(i)] = uint8_t(v >> (8 * i));
    return b;
  };
  EXPECT_FALSE(read_profraw(with_word(1, 9)));                      // version 9 (clang 17)
  EXPECT_FALSE(read_profraw(with_word(1, 8 | kVariantDebugInfo)));  // -debug-info-correlate
  EXPECT_FALSE(read_profraw(with_word(3, ~0ull / 48)));             // data count beyond the file
  EXPECT_FALSE(read_profraw(with_word(5, ~0ull)));                  // counter count overflowing
  EXPECT_FALSE(read_profraw(with_word(7, ~0ull - 3)));              // names size
  EXPECT_FALSE(read_profraw(with_word(2, 12)));                     // binary ids not a multiple of 8
  EXPECT_FALSE(read_profraw(with_word(10, 5)));                     // value kinds
  // A counter pointer outside the counters.
  auto moved = with_word(11 + 2, 0x7fffffff);
  auto r = read_profraw(moved);
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("outside"), std::string::npos) << r.error().message;
  // A NameRef with no name.
  auto renamed = with_word(11, 0x5555);
  r = read_profraw(renamed);
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("not among the profile's names"), std::string::npos);
}

TEST(Profraw, ByteCoverageCountersReadAsRan) {
  // One byte per counter, cleared when the code ran.
  testing::ByteImage b;
  auto names = testing::names_blob({"f"}, false);
  b.u64(0xff6c70726f667281ull).u64(8 | kVariantByteCoverage).u64(0).u64(1).u64(0).u64(3).u64(5).u64(names.size());
  b.u64(uint64_t(-0x10)).u64(0).u64(1);
  // The record sits 0x10 bytes after the counters.
  b.u64(name_ref("f")).u64(7).u64(uint64_t(-0x10)).u64(0).u64(0).u32(3).u16(0).u16(0);
  b.u8(0).u8(1).u8(0).u8(0).u8(0).u8(0).u8(0).u8(0);  // 3 counters, 5 bytes of padding
  b.raw(names).align(8);
  auto r = read_profraw(b.bytes());
  ASSERT_TRUE(r) << r.error().describe();
  EXPECT_EQ((*r)[0].functions[0].counts, (std::vector<uint64_t>{1, 0, 1}));
}

TEST(ProfileCounts, MergeAsLlvmProfdata) {
  ProfileCounts c;
  const uint64_t a[] = {1, 2}, b[] = {10, 20}, three[] = {1, 1, 1};
  const uint64_t big[] = {std::numeric_limits<uint64_t>::max() - 1, 0};
  EXPECT_EQ(c.add("f", 1, a), ProfileCounts::Added::kNew);
  EXPECT_EQ(c.add("f", 1, b), ProfileCounts::Added::kMerged);
  EXPECT_EQ(c.add("f", 2, three), ProfileCounts::Added::kNew);  // another build of f
  EXPECT_EQ(c.add("f", 1, three), ProfileCounts::Added::kCountMismatch);
  auto l = c.find("f", 1);
  ASSERT_EQ(l.found, ProfileCounts::Found::kCounts);
  EXPECT_EQ(*l.counts, (std::vector<uint64_t>{11, 22}));
  EXPECT_EQ(c.find("f", 3).found, ProfileCounts::Found::kHashMismatch);
  EXPECT_EQ(c.find("g", 1).found, ProfileCounts::Found::kUnknownFunction);
  EXPECT_EQ(c.add("f", 1, big), ProfileCounts::Added::kOverflow);
  EXPECT_EQ((*c.find("f", 1).counts)[0], std::numeric_limits<uint64_t>::max());
  EXPECT_EQ(c.functions(), 2u);
}

// A function whose hash no record of its name has: a mismatch for llvm-cov
// 13 and 14 always, for 15 and later only when some record shares its
// context-sensitive flag (bit 60); else unknown, counted zero.
TEST(ProfileCounts, MismatchRuleOfEachLlvmCov) {
  using Rule = ProfileCounts::MismatchRule;
  using Found = ProfileCounts::Found;
  constexpr uint64_t kFlag = 1ull << 60;
  ProfileCounts c;
  const uint64_t one[] = {1};
  c.add("main", 0x1835c, one);
  EXPECT_EQ(c.find("main", 0x29c49111b458, Rule::kSameContextFlag).found, Found::kHashMismatch);
  EXPECT_EQ(c.find("main", 0x29c49111b458, Rule::kAnyOtherHash).found, Found::kHashMismatch);
  EXPECT_EQ(c.find("main", 0x9b6fe4c15696505d, Rule::kSameContextFlag).found, Found::kUnknownFunction);
  EXPECT_EQ(c.find("main", 0x9b6fe4c15696505d, Rule::kSameContextFlag).counts, nullptr);
  EXPECT_EQ(c.find("main", 0x9b6fe4c15696505d, Rule::kAnyOtherHash).found, Found::kHashMismatch);
  // Any one record with the same flag makes it a mismatch.
  c.add("main", kFlag | 7, one);
  EXPECT_EQ(c.find("main", 0x9b6fe4c15696505d, Rule::kSameContextFlag).found, Found::kHashMismatch);
  EXPECT_EQ(c.find("main", kFlag | 7, Rule::kSameContextFlag).found, Found::kCounts);
}

TEST(ProducerVersion, NewestClangOfTheCommentSection) {
  auto of = [](std::string_view s) {
    return clang_major_version(std::span(reinterpret_cast<const uint8_t*>(s.data()), s.size()));
  };
  using namespace std::string_view_literals;
  EXPECT_EQ(of("GCC: (Debian 12.2.0-14) 12.2.0\0Debian clang version 16.0.6 (15)\0"sv), 16u);
  EXPECT_EQ(of("Debian clang version 14.0.6\0Debian clang version 15.0.6\0clang version 13.0.1\0"sv), 15u);
  EXPECT_EQ(of("GCC: (Debian 12.2.0-14) 12.2.0"sv), 0u);
  EXPECT_EQ(of(""sv), 0u);
  EXPECT_EQ(of("clang version "sv), 0u);                       // cut short
  EXPECT_EQ(of("clang version 99999999999999999999.0"sv), 0u);  // no overflow, no guess
  EXPECT_EQ(of("clang version 7"sv), 7u);
}

TEST(Profdata, WrittenAndReadBack) {
  ProfileCounts c;
  std::vector<uint64_t> counts;
  // Enough names for several buckets.
  for (int i = 0; i < 300; ++i) {
    counts.assign(size_t(i % 7 + 1), uint64_t(i));
    c.add("fn" + std::to_string(i), uint64_t(i * 31), counts);
  }
  const uint64_t extra[] = {9};
  c.add("fn3", 999, extra);  // a second hash of one name
  std::string bytes = write_profdata(c);
  std::span<const uint8_t> span(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
  ASSERT_TRUE(looks_like_profdata(span));
  auto r = read_profdata(span);
  ASSERT_TRUE(r) << r.error().describe();
  EXPECT_EQ(r->version, 7u);
  ProfileCounts back;
  for (const FunctionCounts& f : r->functions) EXPECT_EQ(back.add(f.name, f.hash, f.counts), ProfileCounts::Added::kNew);
  EXPECT_EQ(back.functions(), c.functions());
  for (std::string_view n : c.names())
    for (const ProfileCounts::Entry& e : *c.entries(n)) {
      auto l = back.find(n, e.hash);
      ASSERT_EQ(l.found, ProfileCounts::Found::kCounts) << n;
      EXPECT_EQ(*l.counts, e.counts);
    }
}

TEST(Profdata, EveryTruncationIsAnError) {
  ProfileCounts c;
  const uint64_t a[] = {1, 2, 3};
  c.add("alpha", 1, a);
  c.add("beta", 2, a);
  c.add("gamma", 3, a);
  std::string bytes = write_profdata(c);
  for (size_t n = 0; n + 1 < bytes.size(); ++n) {
    std::span<const uint8_t> cut(reinterpret_cast<const uint8_t*>(bytes.data()), n);
    auto r = read_profdata(cut);
    EXPECT_FALSE(r) << "cut at " << n;
  }
}

TEST(Profdata, HostileTable) {
  ProfileCounts c;
  const uint64_t a[] = {1};
  c.add("alpha", 1, a);
  std::string bytes = write_profdata(c);
  auto set_word = [&](size_t at, uint64_t v) {
    std::string b = bytes;
    for (int i = 0; i < 8; ++i) b[at + size_t(i)] = char(v >> (8 * i));
    return b;
  };
  auto read = [](const std::string& b) {
    return read_profdata(std::span(reinterpret_cast<const uint8_t*>(b.data()), b.size()));
  };
  EXPECT_FALSE(read(set_word(8, 12)));       // version 12
  EXPECT_FALSE(read(set_word(24, 1)));       // hash type
  EXPECT_FALSE(read(set_word(32, 5)));       // table inside the header
  EXPECT_FALSE(read(set_word(32, ~0ull)));   // table beyond the file
  EXPECT_FALSE(read(set_word(40, ~0ull)));   // summary fields
  uint64_t table = 0;
  for (int i = 7; i >= 0; --i) table = table << 8 | uint8_t(bytes[32 + size_t(i)]);
  EXPECT_FALSE(read(set_word(table, ~0ull)));      // buckets
  EXPECT_FALSE(read(set_word(table + 8, 1000)));   // entries beyond the records
}

TEST(ProfileNames, PlainCompressedAndDamaged) {
  auto plain = testing::names_blob({"a", "bb", "c:d"}, false);
  auto packed = testing::names_blob({"a", "bb", "c:d"}, true);
  for (const auto& blob : {plain, packed}) {
    auto n = decode_profile_names(blob);
    ASSERT_TRUE(n) << n.error().describe();
    EXPECT_EQ(*n, (std::vector<std::string>{"a", "bb", "c:d"}));
  }
  // A compressed block claiming more than it holds, a cut block, an empty name.
  auto lying = packed;
  lying[0] = 0x7f;
  EXPECT_FALSE(decode_profile_names(lying));
  EXPECT_FALSE(decode_profile_names(std::span(plain.data(), plain.size() - 1)));
  EXPECT_FALSE(decode_profile_names(testing::names_blob({"a", ""}, false)));
  // A claim of a huge inflated size is refused before allocating it.
  testing::ByteImage huge;
  huge.uleb(uint64_t(1) << 40).uleb(4).raw("abcd");
  auto r = decode_profile_names(huge.bytes());
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("claims"), std::string::npos) << r.error().message;
}

// Names inflate a thousandfold and each costs a table's slots: a blob of
// more names than any program has is refused (before, 65 KB of compressed
// "a\x01a\x01..." made a NameTable of 3 GB). (Blocks that together claim
// more than 1 GiB of text are refused too, before that text is made: too
// big for a unit test; six blocks of 512 MiB made covkit take 4 GB.)
TEST(ProfileNames, BlobsOfMoreNamesThanAnyProgramAreRefused) {
  constexpr size_t kNames = (size_t(1) << 23) + 1;
  std::string many;
  many.reserve(2 * kNames);
  for (size_t i = 0; i < kNames; ++i) many += i ? "\x01" "a" : "a";
  testing::ByteImage bomb;
  const std::string z = testing::zlib_compress(many);
  ASSERT_LT(z.size(), size_t(64) << 10);
  bomb.uleb(many.size()).uleb(z.size()).raw(z);
  auto r = joined_profile_names(bomb.bytes());
  ASSERT_FALSE(r) << "a blob of " << kNames << " names was decoded";
  EXPECT_NE(r.error().message.find("function names"), std::string::npos) << r.error().message;
}

TEST(ProfileNames, CacheSharesTablesOfEqualBlobs) {
  NameTableCache cache;
  auto packed = testing::names_blob({"a", "bb", "c:d"}, true);
  auto copy = packed;  // equal bytes elsewhere in memory
  auto first = cache.table(packed);
  auto again = cache.table(copy);
  ASSERT_TRUE(first && again);
  EXPECT_EQ(first->get(), again->get());  // decoded once
  ASSERT_TRUE((*first)->find(name_ref("bb")).has_value());
  EXPECT_EQ(*(*first)->find(name_ref("bb")), "bb");
  auto other = cache.table(testing::names_blob({"a", "bb"}, true));
  ASSERT_TRUE(other);
  EXPECT_NE(other->get(), first->get());
  EXPECT_FALSE((*other)->find(name_ref("c:d")).has_value());
  // A damaged blob is refused each time, its offset from each caller's base.
  auto lying = packed;
  lying[0] = 0x7f;
  auto bad = cache.table(lying, 100);
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().offset, std::optional<uint64_t>(100));
  auto bad_again = cache.table(lying, 200);
  ASSERT_FALSE(bad_again);
  EXPECT_EQ(bad_again.error().offset, std::optional<uint64_t>(200));
}

// The NameRefs a memo gives are the names' MD5s: names met before (another
// program's blob) and new ones, past the memo's growth, from threads at
// once; a cache's tables built through it find every name.
TEST(ProfileNames, MemoGivesEachNamesRef) {
  std::vector<std::string> text;
  for (int i = 0; i < 5000; ++i) text.push_back("lib.c:shared_" + std::to_string(i));
  // Each thread's names: every other shared one, and its own; made
  // before the memo, which keeps views of them.
  std::vector<std::vector<std::string>> own(4);
  for (int t = 0; t < 4; ++t) {
    for (int i = t % 2; i < 5000; i += 2) own[size_t(t)].push_back(text[size_t(i)]);
    for (int i = 0; i < 300; ++i) own[size_t(t)].push_back("t" + std::to_string(t) + ".c:own_" + std::to_string(i));
  }
  NameRefMemo memo;
  std::vector<std::thread> threads;
  std::vector<int> wrong(4, 0);
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&, t] {
      for (int round = 0; round < 2; ++round) {
        std::vector<std::string_view> views(own[size_t(t)].begin(), own[size_t(t)].end());
        std::vector<uint64_t> refs;
        memo.refs_of(views, refs);
        for (size_t k = 0; k < views.size(); ++k) wrong[size_t(t)] += refs[k] != name_ref(views[k]);
      }
    });
  for (std::thread& t : threads) t.join();
  for (int w : wrong) EXPECT_EQ(w, 0);
  NameTableCache cache;
  std::vector<std::string> first(text.begin(), text.begin() + 3000), second(text.begin() + 1000, text.end());
  second.push_back("main.c:main");
  auto a = cache.table(testing::names_blob(first, true));
  auto b = cache.table(testing::names_blob(second, true));
  ASSERT_TRUE(a && b);
  for (const std::string& n : second) {
    const std::optional<std::string_view> found = (*b)->find(name_ref(n));
    ASSERT_TRUE(found.has_value()) << n;
    EXPECT_EQ(*found, n);
  }
  EXPECT_FALSE((*a)->find(name_ref("main.c:main")).has_value());
  EXPECT_EQ((*a)->size(), first.size());
  EXPECT_EQ((*b)->size(), second.size());
}

// Threads asking for one blob at once (two runs of a program read side by
// side) share one table: the later ones wait for the first's decode.
TEST(ProfileNames, CacheDecodesABlobOnceAcrossThreads) {
  std::vector<std::string> many;
  for (int i = 0; i < 20000; ++i) many.push_back("function_" + std::to_string(i));
  const auto blob = testing::names_blob(many, true);
  for (int round = 0; round < 5; ++round) {
    NameTableCache cache;
    std::vector<const NameTable*> got(4, nullptr);
    std::vector<std::thread> threads;
    for (size_t t = 0; t < got.size(); ++t)
      threads.emplace_back([&, t] {
        auto copy = blob;
        auto table = cache.table(copy);
        if (table) got[t] = table->get();
      });
    for (std::thread& t : threads) t.join();
    for (const NameTable* g : got) {
      ASSERT_NE(g, nullptr);
      EXPECT_EQ(g, got[0]);
    }
    EXPECT_EQ(got[0]->size(), many.size());
  }
}

// The records a report adds up hold the counters where they lie; read as
// counts they are what read_profraw gives, in every shape.
TEST(Profraw, ScannedRecordsAreTheReadFunctions) {
  for (const Shape s : {Shape{7, false, false, false}, Shape{8, true, false, true}, Shape{8, false, true, true}}) {
    RawOptions o;
    o.version = s.version;
    o.big_endian = s.big;
    o.pointer32 = s.ptr32;
    o.compressed_names = s.compressed;
    auto bytes = testing::raw_profile(kFunctions, o);
    auto scanned = scan_profraw(bytes);
    ASSERT_TRUE(scanned) << scanned.error().describe();
    ASSERT_EQ(scanned->size(), 1u);
    const RawProfileRecords& p = (*scanned)[0];
    ASSERT_EQ(p.records.size(), kFunctions.size());
    std::vector<uint64_t> counts;
    for (size_t i = 0; i < kFunctions.size(); ++i) {
      EXPECT_EQ(p.records[i].name, kFunctions[i].name);
      EXPECT_EQ(p.records[i].name_ref, name_ref(kFunctions[i].name));
      EXPECT_EQ(p.records[i].hash, kFunctions[i].hash);
      record_counts(p, p.records[i], counts);
      EXPECT_EQ(counts, kFunctions[i].counts);
    }
  }
}

}  // namespace clang_profiles_test
}  // namespace covkit::clang

namespace covkit::clang {
namespace clang_profiles_test {

// Names of several blocks are found by their NameRef in one table; a name
// left empty where two blocks meet is damage as within a block.
TEST(ProfileNames, BlocksJoinedIntoOneTable) {
  std::vector<std::string> many;
  for (int i = 0; i < 3000; ++i) many.push_back("_Z" + std::to_string(i) + "fv");
  auto blob = testing::names_blob(many, true);
  const auto tail = testing::names_blob({"x.c:tail"}, false);
  blob.insert(blob.end(), tail.begin(), tail.end());
  auto joined = joined_profile_names(blob);
  ASSERT_TRUE(joined) << joined.error().describe();
  NameTable table(std::move(*joined));
  EXPECT_EQ(table.size(), many.size() + 1);
  many.push_back("x.c:tail");
  for (const std::string& n : many) {
    const std::optional<std::string_view> found = table.find(name_ref(n));
    ASSERT_TRUE(found.has_value()) << n;
    EXPECT_EQ(*found, n);
  }
  EXPECT_FALSE(table.find(name_ref("absent")).has_value());
  EXPECT_FALSE(NameTable().find(name_ref("a")).has_value());
  auto names = decode_profile_names(blob);
  ASSERT_TRUE(names);
  EXPECT_EQ(*names, many);

  auto empty_block = testing::names_blob({"a"}, false);
  const auto nothing = testing::names_blob({""}, true);
  empty_block.insert(empty_block.end(), nothing.begin(), nothing.end());
  EXPECT_FALSE(joined_profile_names(empty_block));
  EXPECT_FALSE(joined_profile_names(testing::names_blob({"", "a"}, false)));
  EXPECT_FALSE(joined_profile_names(testing::names_blob({"a", "", "b"}, true)));
}

// A slot add gave adds as add would, to that name and hash only: the same
// sums, count mismatches and saturation, and another hash of the name or
// another name of the NameRef untouched.
TEST(ProfileCounts, AddAtASlotAsAddWould) {
  ProfileCounts by_slot, by_name;
  const std::vector<uint64_t> a = {1, 2}, b = {10, 20}, three = {1, 1, 1};
  const std::vector<uint64_t> big = {std::numeric_limits<uint64_t>::max() - 1, 0};
  ProfileCounts::Slot f1, f2, g1;
  for (ProfileCounts* c : {&by_slot, &by_name}) {
    ProfileCounts::Slot ignored;
    EXPECT_EQ(c->add("f", 42, 1, a, c == &by_slot ? f1 : ignored), ProfileCounts::Added::kNew);
    EXPECT_EQ(c->add("f", 42, 2, three, c == &by_slot ? f2 : ignored), ProfileCounts::Added::kNew);
    EXPECT_EQ(c->add("g", 42, 1, b, c == &by_slot ? g1 : ignored), ProfileCounts::Added::kNew);
  }
  EXPECT_EQ(by_slot.add_at(f1, b), by_name.add("f", 42, 1, b));
  EXPECT_EQ(by_slot.add_at(f1, three), by_name.add("f", 42, 1, three));  // kCountMismatch, nothing added
  EXPECT_EQ(by_slot.add_at(f2, three), by_name.add("f", 42, 2, three));
  EXPECT_EQ(by_slot.add_at(g1, big), by_name.add("g", 42, 1, big));
  EXPECT_EQ(by_slot.add_at(g1, big), ProfileCounts::Added::kOverflow);
  by_name.add("g", 42, 1, big);
  for (auto [name, hash] : {std::pair<const char*, uint64_t>{"f", 1}, {"f", 2}, {"g", 1}}) {
    auto s = by_slot.find(name, 42, hash), n = by_name.find(name, 42, hash);
    ASSERT_EQ(s.found, ProfileCounts::Found::kCounts) << name << " " << hash;
    ASSERT_EQ(n.found, ProfileCounts::Found::kCounts);
    EXPECT_EQ(*s.counts, *n.counts) << name << " " << hash;
  }
  EXPECT_EQ(*by_slot.find("f", 42, 1).counts, (std::vector<uint64_t>{11, 22}));
  EXPECT_EQ(*by_slot.find("f", 42, 2).counts, (std::vector<uint64_t>{2, 2, 2}));
  EXPECT_EQ(*by_slot.find("g", 42, 1).counts,
            (std::vector<uint64_t>{std::numeric_limits<uint64_t>::max(), 20}));
}

// Counts are found by NameRef and told apart by name: two names that share
// one (an MD5 collision, here made by hand) keep their own counts.
TEST(ProfileCounts, NamesSharingANameRefKeptApart) {
  ProfileCounts c;
  const std::vector<uint64_t> one = {1, 2}, two = {3, 4};
  EXPECT_EQ(c.add("a", 42, 7, one), ProfileCounts::Added::kNew);
  EXPECT_EQ(c.add("b", 42, 7, two), ProfileCounts::Added::kNew);
  EXPECT_EQ(c.add("a", 42, 7, one), ProfileCounts::Added::kMerged);
  auto a = c.find("a", 42, 7);
  ASSERT_EQ(a.found, ProfileCounts::Found::kCounts);
  EXPECT_EQ(*a.counts, (std::vector<uint64_t>{2, 4}));
  auto b = c.find("b", 42, 7);
  ASSERT_EQ(b.found, ProfileCounts::Found::kCounts);
  EXPECT_EQ(*b.counts, two);
  EXPECT_EQ(c.find("c", 42, 7).found, ProfileCounts::Found::kUnknownFunction);
  EXPECT_EQ(c.find("b", 42, 8).found, ProfileCounts::Found::kHashMismatch);
  EXPECT_EQ(c.names(), (std::vector<std::string_view>{"a", "b"}));
  EXPECT_EQ(c.functions(), 2u);
  // The name's own NameRef, given or computed, finds the same entry.
  EXPECT_EQ(c.add("f", name_ref("f"), 1, one), ProfileCounts::Added::kNew);
  EXPECT_EQ(c.find("f", 1).counts, c.find("f", name_ref("f"), 1).counts);
  ASSERT_NE(c.entries("f"), nullptr);
  EXPECT_EQ(c.entries("f")->size(), 1u);
}

}  // namespace clang_profiles_test
}  // namespace covkit::clang

namespace covkit::clang {
namespace clang_profiles_test {

// `bytes` written to DIR/NAME; the path.
std::string put_profile(const std::string& dir, const std::string& name, const std::vector<uint8_t>& bytes) {
  const std::string path = dir + "/" + name;
  FILE* f = std::fopen(path.c_str(), "wb");
  EXPECT_NE(f, nullptr) << path;
  if (f) {
    EXPECT_EQ(std::fwrite(bytes.data(), 1, bytes.size(), f), bytes.size()) << path;
    std::fclose(f);
  }
  return path;
}

// load_profiles maps a large profile and copies a small one: both add up
// as read_profraw reads them; a FIFO among them is refused, not waited on.
TEST(LoadProfiles, MappedAndCopiedProfilesAddUp) {
  char dir_template[] = "/tmp/covkit-load-profiles-XXXXXX";
  ASSERT_NE(mkdtemp(dir_template), nullptr);
  const std::string dir = dir_template;
  std::vector<RawFunction> many;
  for (uint64_t i = 0; i < 3000; ++i) many.push_back({"_Z" + std::to_string(i) + "fv", i, {i, 1, 2, i * 3}, 0});
  const auto large = testing::raw_profile(many);
  const auto small = testing::raw_profile(kFunctions);
  ASSERT_GE(large.size(), size_t(64 * 1024));  // mapped
  ASSERT_LT(small.size(), size_t(64 * 1024));  // copied
  const std::string a = put_profile(dir, "a.profraw", large), b = put_profile(dir, "b.profraw", large),
                    c = put_profile(dir, "c.profraw", small);
  const std::string fifo = dir + "/fifo.profraw";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  NameTableCache names;
  LoadedProfiles loaded = load_profiles({a, fifo, b, c}, 2, &names);
  EXPECT_EQ(loaded.read, 3u);
  EXPECT_EQ(loaded.damaged, 1u);
  ASSERT_EQ(loaded.warnings.size(), 1u);
  EXPECT_NE(loaded.warnings[0].find("fifo.profraw: cannot read the profile"), std::string::npos) << loaded.warnings[0];
  EXPECT_EQ(loaded.counts.functions(), many.size() + kFunctions.size());
  for (const RawFunction& f : many) {
    auto l = loaded.counts.find(f.name, f.hash);
    ASSERT_EQ(l.found, ProfileCounts::Found::kCounts) << f.name;
    std::vector<uint64_t> twice;
    for (uint64_t v : f.counts) twice.push_back(2 * v);
    EXPECT_EQ(*l.counts, twice) << f.name;
  }
  for (const RawFunction& f : kFunctions) {
    auto l = loaded.counts.find(f.name, f.hash);
    ASSERT_EQ(l.found, ProfileCounts::Found::kCounts) << f.name;
    EXPECT_EQ(*l.counts, f.counts) << f.name;
  }
  for (const std::string& p : {a, b, c, fifo}) std::remove(p.c_str());
  rmdir(dir.c_str());
}

// Profiles that share one names blob (one cached table) but list their
// records in another order, or give a slot's name another hash, add up as
// adding each record by name would: a remembered slot is used only for the
// same name and hash at the same place.
TEST(LoadProfiles, RecordsReorderedUnderOneNamesBlob) {
  char dir_template[] = "/tmp/covkit-load-reorder-XXXXXX";
  ASSERT_NE(mkdtemp(dir_template), nullptr);
  const std::string dir = dir_template;
  const std::vector<std::string> blob = {"f", "g", "h"};
  RawOptions o;
  o.names_order = blob;
  const std::vector<std::vector<RawFunction>> runs = {
      {{"f", 1, {1, 2}, 0}, {"g", 2, {3}, 0}, {"h", 3, {4, 5, 6}, 0}},
      {{"h", 3, {10, 20, 30}, 0}, {"f", 1, {40, 50}, 0}, {"g", 2, {60}, 0}},
      {{"g", 2, {7}, 0}, {"h", 9, {8, 9, 10}, 0}, {"f", 1, {11, 12}, 0}},  // h of another hash
      {{"f", 1, {100, 200}, 0}, {"g", 2, {300}, 0}, {"h", 3, {400, 500, 600}, 0}},
  };
  std::vector<std::string> files;
  ProfileCounts by_name;
  for (size_t k = 0; k < runs.size(); ++k) {
    files.push_back(put_profile(dir, "r" + std::to_string(k) + ".profraw", testing::raw_profile(runs[k], o)));
    for (const RawFunction& fn : runs[k]) by_name.add(fn.name, fn.hash, fn.counts);
  }
  NameTableCache names;
  LoadedProfiles loaded = load_profiles(files, 1, &names);
  EXPECT_EQ(loaded.read, runs.size());
  EXPECT_TRUE(loaded.warnings.empty()) << loaded.warnings[0];
  EXPECT_EQ(loaded.counts.functions(), by_name.functions());
  for (auto [name, hash] : {std::pair<std::string, uint64_t>{"f", 1}, {"g", 2}, {"h", 3}, {"h", 9}}) {
    auto got = loaded.counts.find(name, hash);
    auto want = by_name.find(name, hash);
    ASSERT_EQ(got.found, ProfileCounts::Found::kCounts) << name << " " << hash;
    ASSERT_EQ(want.found, ProfileCounts::Found::kCounts) << name << " " << hash;
    EXPECT_EQ(*got.counts, *want.counts) << name << " " << hash;
  }
  EXPECT_EQ(*loaded.counts.find("f", 1).counts, (std::vector<uint64_t>{152, 264}));
  EXPECT_EQ(*loaded.counts.find("h", 3).counts, (std::vector<uint64_t>{414, 525, 636}));
  for (const std::string& p : files) std::remove(p.c_str());
  rmdir(dir.c_str());
}

// Profiles are added up in the order given whatever thread read each and
// whenever: the first profile's number of counters wins, each warning
// names its file in order, and the counts add up the same on 1 to 4
// threads (the adding overlaps the reading of the files after).
TEST(LoadProfiles, AddedUpInOrderOnAnyThreads) {
  char dir_template[] = "/tmp/covkit-load-order-XXXXXX";
  ASSERT_NE(mkdtemp(dir_template), nullptr);
  const std::string dir = dir_template;
  std::vector<std::string> files;
  for (uint64_t k = 0; k < 24; ++k) {
    std::vector<RawFunction> fs;
    // Every fifth profile has another number of counters for "g".
    fs.push_back({"g", 7, k % 5 == 3 ? std::vector<uint64_t>{k, 1} : std::vector<uint64_t>{k, 1, 2}, 0});
    for (uint64_t i = 0; i < (k % 3 == 0 ? 2000 : 20); ++i)  // some large (mapped), some small
      fs.push_back({"_Z" + std::to_string(i) + "fv", i, {k + i, 1}, 0});
    files.push_back(put_profile(dir, "p" + std::to_string(k) + ".profraw", testing::raw_profile(fs)));
  }
  files.insert(files.begin() + 5, dir + "/missing.profraw");
  std::vector<uint64_t> g{0, 0, 0};  // the profiles whose "g" has three counters, as the first one's
  std::vector<std::string> expected;  // each warning's start, in the files' order
  for (uint64_t k = 0; k < 24; ++k) {
    if (k == 5) expected.push_back(dir + "/missing.profraw: cannot read the profile");
    if (k % 5 == 3) {
      expected.push_back(dir + "/p" + std::to_string(k) + ".profraw: 1 function with another number of counters");
      continue;
    }
    g[0] += k;
    g[1] += 1;
    g[2] += 2;
  }
  for (unsigned threads : {1u, 2u, 4u}) {
    NameTableCache names;
    LoadedProfiles loaded = load_profiles(files, threads, &names);
    EXPECT_EQ(loaded.read, 24u) << threads;
    EXPECT_EQ(loaded.damaged, 1u) << threads;
    auto l = loaded.counts.find("g", 7);
    ASSERT_EQ(l.found, ProfileCounts::Found::kCounts) << threads;
    EXPECT_EQ(*l.counts, g) << threads;
    ASSERT_EQ(loaded.warnings.size(), expected.size()) << threads;
    for (size_t i = 0; i < expected.size(); ++i)
      EXPECT_EQ(loaded.warnings[i].rfind(expected[i], 0), 0u) << threads << ": " << loaded.warnings[i];
    auto f = loaded.counts.find("_Z1999fv", 1999);
    ASSERT_EQ(f.found, ProfileCounts::Found::kCounts) << threads;
    EXPECT_EQ(*f.counts, (std::vector<uint64_t>{0 + 3 + 6 + 9 + 12 + 15 + 18 + 21 + 8 * 1999, 8})) << threads;
  }
  for (const std::string& p : files) std::remove(p.c_str());
  rmdir(dir.c_str());
}

}  // namespace clang_profiles_test
}  // namespace covkit::clang
