// clang/coverage_mapping_reader, function_records, coverage_segments and
// clang_model: mappings decoded (file lists plain and compressed, format 6's
// compile directory, expansions, gaps, skipped code, branches), duplicate
// records of one function (dummy against real), counts evaluated against a
// profile by llvm-cov's rules, lines from regions, and damaged mappings.
#include <gtest/gtest.h>

#include "clang/clang_model.h"
#include "clang/coverage_mapping_reader.h"
#include "clang/coverage_segments.h"
#include "clang/elf_sections.h"
#include "clang/function_records.h"
#include "clang_image_builder.h"

namespace covkit::clang {
namespace clang_mapping_test {

using testing::add_expr;
using testing::counter_ref;
using testing::RegionSpec;
using testing::sub_expr;

Expected<BinaryMapping> decode(const testing::MappingImage& m, bool big = false) {
  MappingSections s;
  s.covmap = m.covmap;
  s.covfun = m.covfun;
  s.names = m.names;
  s.big_endian = big;
  return decode_coverage_mapping(s);
}

// int main(int argc) {          // 1
//   if (argc > 1)               // 2   branch 2:7-2:15
//     return 1;                 // 3
//   return MAX(argc, 0);        // 4   expansion 4:10-4:13 of file 1
// }                             // 5
// #define MAX(a,b) ((a)>(b)?(a):(b))   (file 1 = m.h line 1)
std::vector<uint8_t> main_mapping() {
  return testing::mapping_bytes(
      {1, 2}, {{counter_ref(0), counter_ref(1)}},
      {{{RegionSpec::kCode, counter_ref(0), 0, 0, 1, 17, 5, 2},
        {RegionSpec::kBranch, counter_ref(1), sub_expr(0), 0, 2, 7, 2, 15},
        {RegionSpec::kGap, counter_ref(1), 0, 0, 2, 16, 3, 5},
        {RegionSpec::kCode, counter_ref(1), 0, 0, 3, 5, 3, 13},
        {RegionSpec::kCode, sub_expr(0), 0, 0, 4, 3, 5, 2},
        {RegionSpec::kExpansion, 0, 0, 1, 4, 10, 4, 13}},
       {{RegionSpec::kCode, counter_ref(2), 0, 0, 1, 18, 1, 35}}});
}

TEST(Mapping, DecodesEveryKindOfRegion) {
  for (bool big : {false, true})
    for (bool compressed : {false, true}) {
      auto m = decode(testing::mapping_sections({{"/build", "src/a.c", "/inc/m.h", "../x/y.c"}},
                                                {{"main", 0x99, main_mapping(), 0}}, big, compressed),
                      big);
      ASSERT_TRUE(m) << m.error().describe();
      EXPECT_EQ(m->format_version, 6u);
      ASSERT_EQ(m->functions.size(), 1u);
      const FunctionMapping& f = m->functions[0];
      EXPECT_EQ(f.name, "main");
      EXPECT_EQ(f.hash, 0x99u);
      // Relative names are joined to the compile directory, ".." folded.
      EXPECT_EQ(f.filenames, (std::vector<std::string>{"/build/src/a.c", "/inc/m.h"}));
      ASSERT_EQ(f.regions.size(), 7u);
      EXPECT_EQ(f.regions[1].kind, RegionKind::kBranch);
      EXPECT_EQ(f.regions[1].false_count.kind, Counter::kExpression);
      EXPECT_EQ(f.regions[2].kind, RegionKind::kGap);
      EXPECT_EQ(f.regions[2].column_end, 5u);
      EXPECT_EQ(f.regions[5].kind, RegionKind::kExpansion);
      // The expansion counts what the first region of its file counts.
      EXPECT_EQ(f.regions[5].count, (Counter{Counter::kCounter, 2}));
      EXPECT_EQ(f.regions[6].file_id, 1u);
      EXPECT_EQ(f.regions[6].line_start, 1u);
    }
}

TEST(Mapping, RealRecordWinsOverDummy) {
  auto dummy = testing::mapping_bytes({0}, {}, {{{RegionSpec::kCode, 0, 0, 0, 3, 1, 4, 2}}});
  auto real = testing::mapping_bytes({0}, {}, {{{RegionSpec::kCode, counter_ref(0), 0, 0, 3, 1, 4, 2}}});
  auto m = decode(testing::mapping_sections({{"/d", "h.h"}, {"/d", "h.h", "b.c"}},
                                            {{"inl", 0, dummy, 0}, {"inl", 5, real, 1}, {"inl", 6, real, 1}}));
  ASSERT_TRUE(m) << m.error().describe();
  ASSERT_EQ(m->functions.size(), 1u);
  EXPECT_EQ(m->functions[0].hash, 5u);  // the first real one
  EXPECT_EQ(m->functions[0].regions[0].count.kind, Counter::kCounter);
}

TEST(Mapping, DamagedSectionsAreErrors) {
  auto good = testing::mapping_sections({{"/b", "a.c", "m.h"}}, {{"main", 1, main_mapping(), 0}});
  ASSERT_TRUE(decode(good));
  // Every truncation of every section; only the padding after the last
  // unit or record may go.
  const size_t covmap_used = 16 + testing::filenames_blob({"/b", "a.c", "m.h"}, false).size();
  const size_t covfun_used = 28 + main_mapping().size();
  for (auto which : {&testing::MappingImage::covmap, &testing::MappingImage::covfun, &testing::MappingImage::names})
    for (size_t n = 0; n + 1 < (good.*which).size(); ++n) {
      auto cut = good;
      (cut.*which).resize(n);
      auto r = decode(cut);
      const bool padding_only = (which == &testing::MappingImage::covmap && n >= covmap_used) ||
                                (which == &testing::MappingImage::covfun && (n == 0 || n >= covfun_used));
      if (padding_only) {
        EXPECT_TRUE(r) << "cut at " << n;  // no functions at all is fine too
        continue;
      }
      EXPECT_FALSE(r) << "cut at " << n;
    }
  // Format 7 (clang 18), an unknown file list, an unknown name.
  auto v7 = testing::mapping_sections({{"/b", "a.c", "m.h"}}, {{"main", 1, main_mapping(), 0}}, false, false, 6);
  EXPECT_FALSE(decode(v7));
  auto other = good;
  other.covfun[20] ^= 0xff;
  EXPECT_FALSE(decode(other));
  auto unnamed = good;
  unnamed.covfun[0] ^= 0xff;
  EXPECT_FALSE(decode(unnamed));
  // Expansions that expand each other do not loop forever.
  auto loop = testing::mapping_bytes({0, 0}, {},
                                     {{{RegionSpec::kExpansion, 0, 0, 1, 1, 1, 1, 5}},
                                      {{RegionSpec::kExpansion, 0, 0, 0, 1, 1, 1, 5}}});
  auto r = decode(testing::mapping_sections({{"/b", "a.c"}}, {{"f", 1, loop, 0}}));
  if (r) {
    EXPECT_EQ(r->functions.size(), 1u);
  }
}

ProfileCounts profile_of(std::string_view name, uint64_t hash, std::vector<uint64_t> counts) {
  ProfileCounts p;
  p.add(name, hash, counts);
  return p;
}

TEST(Records, CountsAsLlvmCov) {
  auto m = decode(testing::mapping_sections({{"/b", "a.c", "m.h"}}, {{"main", 0x99, main_mapping(), 0}}));
  ASSERT_TRUE(m);
  // main ran 3 times, argc > 1 once; MAX's region counted 2.
  CoverageSet set;
  std::vector<MismatchedFunction> mismatched;
  set.add(m->functions, profile_of("main", 0x99, {3, 1, 2}), mismatched);
  ASSERT_EQ(set.functions().size(), 1u);
  const FunctionRecord& f = set.functions()[0];
  EXPECT_EQ(f.execution_count, 3u);
  ASSERT_EQ(f.branches.size(), 1u);
  EXPECT_EQ(f.branches[0].execution_count, 1u);
  EXPECT_EQ(f.branches[0].false_execution_count, 2u);

  model::FileCov a = file_model(set, "/b/a.c");
  std::vector<std::pair<uint32_t, int64_t>> lines;
  for (const model::LineCov& l : a.lines) lines.emplace_back(l.number, l.count);
  // Line 4 takes the body's count wrapping into it (3): a line shows the
  // most of what starts on it and what wraps into it (clang would have put
  // a gap region after "return 1;", which this mapping lacks).
  EXPECT_EQ(lines, (std::vector<std::pair<uint32_t, int64_t>>{{1, 3}, {2, 3}, {3, 1}, {4, 3}, {5, 2}}));
  const model::LineCov* two = a.find_line(2);
  ASSERT_EQ(two->branches.size(), 2u);
  EXPECT_EQ(two->branches[0].count, 1);
  EXPECT_EQ(two->branches[1].count, 2);
  ASSERT_EQ(a.functions.size(), 1u);
  EXPECT_EQ(a.functions[0].regions, 4u);  // code regions, the macro's included
  EXPECT_EQ(a.functions[0].regions_covered, 4u);
  model::FileCov h = file_model(set, "/b/m.h");
  ASSERT_EQ(h.lines.size(), 1u);
  EXPECT_EQ(h.lines[0].count, 2);
  EXPECT_TRUE(h.functions.empty());

  // Another hash in the profile: left out and said; absent: zeros.
  CoverageSet other;
  other.add(m->functions, profile_of("main", 0x1, {3, 1, 2}), mismatched);
  EXPECT_TRUE(other.functions().empty());
  ASSERT_EQ(mismatched.size(), 1u);
  EXPECT_EQ(mismatched[0].name, "main");
  CoverageSet absent;
  absent.add(m->functions, ProfileCounts(), mismatched);
  ASSERT_EQ(absent.functions().size(), 1u);
  EXPECT_EQ(absent.functions()[0].execution_count, 0u);
  // The same function from a second binary is taken once.
  absent.add(m->functions, ProfileCounts(), mismatched);
  EXPECT_EQ(absent.functions().size(), 1u);
}

// Functions counted first (on any thread) and added in order: a function
// several binaries share is taken once, its mismatch said each time it is
// given, and what a dummy or a missing counter rules out is never taken.
TEST(Records, CountedFunctionsAddedInOrder) {
  auto m = decode(testing::mapping_sections({{"/b", "a.c", "m.h"}}, {{"main", 0x99, main_mapping(), 0}}));
  ASSERT_TRUE(m);
  const ProfileCounts profile = profile_of("main", 0x99, {3, 1, 2});
  CountedFunction counted = count_function(m->functions[0], profile);
  ASSERT_EQ(counted.outcome, CountedFunction::Outcome::kCounted);
  CoverageSet set;
  std::vector<MismatchedFunction> mismatched;
  set.add({&counted}, mismatched);
  set.add({&counted}, mismatched);  // a second binary's copy
  ASSERT_EQ(set.functions().size(), 1u);
  EXPECT_TRUE(mismatched.empty());
  // The same as counting and adding the mappings in one go.
  CoverageSet direct;
  direct.add(m->functions, profile, mismatched);
  ASSERT_EQ(direct.functions().size(), 1u);
  const FunctionRecord& a = set.functions()[0];
  const FunctionRecord& b = direct.functions()[0];
  EXPECT_EQ(a.name, b.name);
  EXPECT_EQ(a.execution_count, b.execution_count);
  ASSERT_EQ(a.regions.size(), b.regions.size());
  for (size_t i = 0; i < a.regions.size(); ++i) {
    EXPECT_EQ(a.regions[i].execution_count, b.regions[i].execution_count);
    EXPECT_EQ(a.regions[i].line_start, b.regions[i].line_start);
    EXPECT_EQ(a.regions[i].kind, b.regions[i].kind);
  }
  EXPECT_EQ(a.file_keys, b.file_keys);
  // Another build's profile: said for each binary that gives it.
  CountedFunction other = count_function(m->functions[0], profile_of("main", 0x1, {3, 1, 2}));
  EXPECT_EQ(other.outcome, CountedFunction::Outcome::kMismatched);
  CoverageSet none;
  none.add({&other}, mismatched);
  none.add({&other}, mismatched);
  EXPECT_TRUE(none.functions().empty());
  ASSERT_EQ(mismatched.size(), 2u);
  EXPECT_EQ(mismatched[1].name, "main");
  // A dummy of a function that ran elsewhere.
  auto dummy = testing::mapping_bytes({0}, {}, {{{RegionSpec::kCode, 0, 0, 0, 3, 1, 4, 2}}});
  auto d = decode(testing::mapping_sections({{"/d", "h.h"}}, {{"inl", 0, dummy, 0}}));
  ASSERT_TRUE(d);
  EXPECT_EQ(count_function(d->functions[0], profile_of("inl", 0, {4})).outcome, CountedFunction::Outcome::kUnused);
  EXPECT_EQ(count_function(d->functions[0], profile_of("inl", 0, {0})).outcome, CountedFunction::Outcome::kCounted);
}

TEST(Records, InstancesAreEachFunctionsOwnLines) {
  // --show-instantiations: each line of a function's home file names the
  // function with its own count (one function here: the line's count); the
  // macro's file, not its home, gets none.
  auto m = decode(testing::mapping_sections({{"/b", "a.c", "m.h"}}, {{"main", 0x99, main_mapping(), 0}}));
  ASSERT_TRUE(m);
  CoverageSet set;
  std::vector<MismatchedFunction> mismatched;
  set.add(m->functions, profile_of("main", 0x99, {3, 1, 2}), mismatched);
  model::FileCov plain = file_model(set, "/b/a.c");
  for (const model::LineCov& l : plain.lines) EXPECT_TRUE(l.instances.empty());
  model::FileCov a = file_model(set, "/b/a.c", nullptr, true);
  ASSERT_EQ(a.lines.size(), 5u);
  for (const model::LineCov& l : a.lines) {
    ASSERT_EQ(l.instances.size(), 1u) << "line " << l.number;
    EXPECT_EQ(l.instances[0].function, "main");
    EXPECT_EQ(l.instances[0].count, l.count) << "line " << l.number;
  }
  model::FileCov h = file_model(set, "/b/m.h", nullptr, true);
  ASSERT_EQ(h.lines.size(), 1u);
  EXPECT_TRUE(h.lines[0].instances.empty());
}

TEST(Records, DummyOfAFunctionThatRanIsIgnored) {
  auto dummy = testing::mapping_bytes({0}, {}, {{{RegionSpec::kCode, 0, 0, 0, 3, 1, 4, 2}}});
  auto m = decode(testing::mapping_sections({{"/d", "h.h"}}, {{"inl", 0, dummy, 0}}));
  ASSERT_TRUE(m);
  CoverageSet set;
  std::vector<MismatchedFunction> mismatched;
  set.add(m->functions, profile_of("inl", 0, {4}), mismatched);
  EXPECT_TRUE(set.functions().empty());
  CoverageSet unused;
  unused.add(m->functions, profile_of("inl", 0, {0}), mismatched);
  EXPECT_EQ(unused.functions().size(), 1u);
}

TEST(Records, StaticFunctionNamesLoseTheirFilePrefix) {
  auto code = testing::mapping_bytes({0}, {}, {{{RegionSpec::kCode, counter_ref(0), 0, 0, 1, 1, 2, 2}}});
  // Format 5 keeps names as written (no compile directory).
  auto m = decode(testing::mapping_sections({{"s.c"}}, {{"s.c:helper", 3, code, 0}}, false, false, 4));
  ASSERT_TRUE(m) << m.error().describe();
  CoverageSet set;
  std::vector<MismatchedFunction> mismatched;
  set.add(m->functions, ProfileCounts(), mismatched);
  ASSERT_EQ(set.functions().size(), 1u);
  EXPECT_EQ(set.functions()[0].name, "helper");
}

TEST(Records, HostileExpressionsEndQuickly) {
  // e[i] = e[i-1] + e[i-1]: 2^60 leaves if walked naively; and a cycle.
  std::vector<std::pair<uint64_t, uint64_t>> exprs{{counter_ref(0), counter_ref(0)}};
  for (uint32_t i = 1; i < 60; ++i) exprs.push_back({add_expr(i - 1), add_expr(i - 1)});
  exprs.push_back({add_expr(61), counter_ref(0)});
  exprs.push_back({add_expr(60), counter_ref(0)});
  auto code = testing::mapping_bytes({0}, exprs,
                                     {{{RegionSpec::kCode, add_expr(59), 0, 0, 1, 1, 2, 2},
                                       {RegionSpec::kCode, counter_ref(0), 0, 0, 3, 1, 3, 9}}});
  auto m = decode(testing::mapping_sections({{"/b", "a.c"}}, {{"f", 3, code, 0}}));
  ASSERT_TRUE(m) << m.error().describe();
  CoverageSet set;
  std::vector<MismatchedFunction> mismatched;
  set.add(m->functions, profile_of("f", 3, {1}), mismatched);
  ASSERT_EQ(set.functions().size(), 1u);
  EXPECT_EQ(set.functions()[0].execution_count, uint64_t(1) << 60);
  auto cyclic = testing::mapping_bytes({0}, exprs, {{{RegionSpec::kCode, add_expr(60), 0, 0, 1, 1, 2, 2}}});
  auto c = decode(testing::mapping_sections({{"/b", "a.c"}}, {{"g", 3, cyclic, 0}}));
  ASSERT_TRUE(c);
  CoverageSet none;
  none.add(c->functions, profile_of("g", 3, {1}), mismatched);
  EXPECT_TRUE(none.functions().empty());  // dropped, as llvm-cov drops what it cannot evaluate
}

CountedRegion region(uint32_t ls, uint32_t cs, uint32_t le, uint32_t ce, uint64_t count,
                     RegionKind kind = RegionKind::kCode) {
  CountedRegion r;
  r.line_start = ls;
  r.column_start = cs;
  r.line_end = le;
  r.column_end = ce;
  r.execution_count = count;
  r.kind = kind;
  return r;
}

std::vector<std::pair<uint32_t, uint64_t>> lines_of(std::vector<CountedRegion> regions) {
  std::vector<std::pair<uint32_t, uint64_t>> out;
  for (const LineCount& l : mapped_lines(build_segments(regions))) out.emplace_back(l.line, l.count);
  return out;
}

TEST(Segments, LineRules) {
  // A body with a nested block that ran less: a line's count is the most
  // of the regions starting on it, or what wraps into it.
  EXPECT_EQ(lines_of({region(1, 10, 5, 2, 4), region(2, 12, 4, 4, 1)}),
            (std::vector<std::pair<uint32_t, uint64_t>>{{1, 4}, {2, 4}, {3, 1}, {4, 1}, {5, 4}}));
  // A gap region gives a line its count only when nothing starts there.
  EXPECT_EQ(lines_of({region(1, 1, 6, 2, 3), region(2, 8, 3, 3, 0, RegionKind::kGap), region(3, 3, 3, 9, 0)}),
            (std::vector<std::pair<uint32_t, uint64_t>>{{1, 3}, {2, 3}, {3, 0}, {4, 3}, {5, 3}, {6, 3}}));
  // Skipped code (#if 0) is not code.
  EXPECT_EQ(lines_of({region(1, 1, 6, 2, 2), region(2, 1, 4, 7, 0, RegionKind::kSkipped)}),
            (std::vector<std::pair<uint32_t, uint64_t>>{{1, 2}, {5, 2}, {6, 2}}));
  // Regions of one range add up (a macro used twice).
  EXPECT_EQ(lines_of({region(1, 1, 1, 9, 2), region(1, 1, 1, 9, 5)}),
            (std::vector<std::pair<uint32_t, uint64_t>>{{1, 7}}));
  // A far-away first region is reached in one step.
  EXPECT_EQ(lines_of({region(4000000, 1, 4000000, 3, 1)}),
            (std::vector<std::pair<uint32_t, uint64_t>>{{4000000, 1}}));
}

TEST(Segments, SkippedCommentOpeningALineOfCode) {
  // gawk's node.c:116-127 (clang-16, r_force_number): clang made the
  // whitespace and comment at the end of line 122 a skipped region that
  // starts at column 1, before the code of the line (`if (   (! do_posix
  // /* ... */`), and overlaps the code region starting at column 2.
  // llvm-cov's first segment of the line is then the skipped one: the line
  // is not mapped (llvm-cov show leaves it blank, export writes no DA).
  using K = RegionKind;
  std::vector<CountedRegion> regions = {
      region(57, 1, 185, 2, 6000),            region(72, 2, 185, 2, 6000),
      region(83, 2, 185, 2, 6000),            region(96, 2, 185, 2, 6000),
      region(116, 1, 117, 19, 0, K::kSkipped),
      region(118, 3, 122, 2, 6000, K::kGap),  region(119, 1, 121, 1, 0, K::kSkipped),
      region(122, 1, 122, 52, 0, K::kSkipped), region(122, 2, 185, 2, 6000),
      region(122, 9, 125, 56, 6000),          region(122, 10, 122, 20, 6000),
      region(122, 12, 122, 20, 6000, K::kExpansion), region(123, 13, 125, 55, 6000),
      region(123, 14, 123, 43, 6000),         region(124, 1, 124, 44, 0, K::kSkipped),
      region(125, 10, 125, 54, 6000),         region(125, 11, 125, 32, 6000),
      region(125, 13, 125, 32, 6000, K::kExpansion), region(125, 36, 125, 53, 6000),
      region(125, 57, 125, 58, 0, K::kGap),   region(125, 58, 127, 3, 0)};
  std::vector<std::pair<uint32_t, uint64_t>> got;
  for (const auto& l : lines_of(regions))
    if (l.first >= 118 && l.first <= 127) got.push_back(l);
  EXPECT_EQ(got, (std::vector<std::pair<uint32_t, uint64_t>>{{118, 6000}, {123, 6000}, {125, 6000}, {126, 0},
                                                              {127, 0}}));
}

TEST(Elf, HostileSectionTables) {
  testing::ByteImage e;
  e.raw(std::string("\x7f" "ELF\x02\x01\x01", 7)).align(16);
  e.u16(3).u16(62).u32(1).u64(0).u64(0).u64(64).u32(0).u16(64).u16(56).u16(0).u16(64).u16(1000).u16(0);
  auto r = read_elf_sections(e.bytes());
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("run past the end"), std::string::npos) << r.error().message;
  EXPECT_FALSE(read_elf_sections(std::vector<uint8_t>{0x7f, 'E', 'L', 'F'}));
  auto m = read_coverage_mapping(e.bytes());
  EXPECT_FALSE(m);
}

}  // namespace clang_mapping_test
}  // namespace covkit::clang
