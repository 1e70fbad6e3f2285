// llvm-cov gcov's counting rules (model/llvm_gcov.h) on small graphs whose
// answers follow from the rules by hand; the whole corpus is compared with
// llvm-cov itself in tests/differential (diff.clang.*).
#include "model/llvm_gcov.h"

#include <gtest/gtest.h>

#include "format/gcov_tags.h"
#include "format/gcov_version.h"

namespace covkit::model {
namespace {

void arcs(format::NotesFunction& f, uint32_t src, std::vector<std::pair<uint32_t, bool>> dsts) {
  f.begin_arcs(src);
  for (auto [dst, on_tree] : dsts) f.add_arc(dst, on_tree ? format::kArcOnTree : 0u);
}

void lines(format::NotesFunction& f, uint32_t block, std::vector<uint32_t> numbers) {
  f.begin_lines(block);
  f.begin_location(0);
  for (uint32_t n : numbers) f.add_line(n);
}

// int f(n) {        line 2: block 2
//   while (n--) ;   line 3: blocks 3 (test) and 4 (body), a loop on one line
// }                 entry 0, exit 1
format::NotesFile loop_on_one_line() {
  format::NotesFile nf;
  nf.version = *format::GcovVersion::decode(0x3430382a);  // "408*"
  nf.stamp = 7;
  nf.files = {"f.c"};  // the locations name file 0
  format::NotesFunction f;
  f.ident = 1;
  f.name = "f";
  f.source = "f.c";
  f.start_line = 2;
  f.num_blocks = 5;
  // Measured (off the tree), in counter order: 2->3, 3->4.
  arcs(f, 0, {{2, true}});
  arcs(f, 2, {{3, false}});
  arcs(f, 3, {{4, false}, {1, true}});
  arcs(f, 4, {{3, true}});
  lines(f, 2, {2});
  lines(f, 3, {3});
  lines(f, 4, {3});
  nf.functions.push_back(f);
  return nf;
}

format::DataFile counts(const format::NotesFile& nf, std::vector<int64_t> arc_counts) {
  format::DataFile df;
  df.version = nf.version;
  df.stamp = nf.stamp;
  format::DataRecord fn;
  fn.kind = format::DataRecord::Kind::kFunction;
  fn.tag = format::kTagFunction;
  fn.length = 3;
  fn.has_ids = true;
  fn.ident = 1;
  df.records.push_back(fn);
  format::DataRecord c;
  c.kind = format::DataRecord::Kind::kCounters;
  c.tag = format::kTagArcCounters;
  c.length = uint32_t(2 * arc_counts.size());
  c.num_counters = uint32_t(arc_counts.size());
  c.counters = std::move(arc_counts);
  df.records.push_back(c);
  format::DataRecord summary;
  summary.kind = format::DataRecord::Kind::kSummary;
  summary.tag = format::kTagProgramSummary;
  summary.length = 3;
  summary.runs = 1;
  df.records.push_back(summary);
  return df;
}

TEST(LlvmGcov, TreeArcsBalanceEveryBlockAndBlocksCountTheirOutgoingArcs) {
  const format::NotesFile nf = loop_on_one_line();
  LlvmObject obj = llvm_object_from_notes(nf);
  llvm_add_counts(obj, nf, counts(nf, {1, 5}));  // entered once, 5 turns
  EXPECT_EQ(obj.errors, "");
  EXPECT_EQ(obj.runs, 1u);
  EXPECT_EQ(obj.programs, 1u);
  const LlvmFunction& f = obj.functions[0];
  EXPECT_EQ(f.entry_count(), 1u);
  EXPECT_EQ(f.blocks[2].count, 1u);
  EXPECT_EQ(f.blocks[3].count, 6u);  // 5 into the body, 1 out to the exit
  EXPECT_EQ(f.blocks[4].count, 5u);
  // The exit's only arc is the one back to the entry, which is not counted.
  EXPECT_EQ(f.blocks[1].count, 0u);
}

TEST(LlvmGcov, ALineCountsArcsFromOtherLinesPlusItsCycles) {
  const format::NotesFile nf = loop_on_one_line();
  LlvmObject obj = llvm_object_from_notes(nf);
  llvm_add_counts(obj, nf, counts(nf, {1, 5}));
  std::vector<LlvmSummary> fns;
  std::vector<LlvmSource> sources = llvm_collect_functions(obj, false, &fns);
  ASSERT_EQ(sources.size(), 1u);
  ASSERT_EQ(fns.size(), 1u);
  EXPECT_EQ(fns[0].lines, 2u);
  LlvmSummary s = llvm_collect_source(obj, sources[0], "f.c", true);
  EXPECT_EQ(sources[0].lines[2].count, 1u);
  // One arc enters line 3 from line 2; the loop 3->4->3 ran 5 times.
  EXPECT_EQ(sources[0].lines[3].count, 6u);
  EXPECT_EQ(s.lines, 2u);
  EXPECT_EQ(s.lines_exec, 2u);
  EXPECT_EQ(s.branches, 2u);  // block 3's two arcs, on its last line
  EXPECT_EQ(s.branches_taken, 2u);
}

TEST(LlvmGcov, MismatchedCountersStopTheDataFileAsLlvmCovDoes) {
  const format::NotesFile nf = loop_on_one_line();
  LlvmObject obj = llvm_object_from_notes(nf);
  llvm_add_counts(obj, nf, counts(nf, {1, 5, 9}));
  EXPECT_EQ(obj.errors, "f: GCOV_TAG_COUNTER_ARCS mismatch, got 6, expected 4\nInvalid .gcda File!\n");
  EXPECT_EQ(obj.functions[0].entry_count(), 0u);
  EXPECT_EQ(obj.programs, 0u);  // the summary after it is not read
}

TEST(LlvmGcov, ADataFileOfAnotherCompileIsRefused) {
  const format::NotesFile nf = loop_on_one_line();
  LlvmObject obj = llvm_object_from_notes(nf);
  format::DataFile df = counts(nf, {1, 5});
  df.stamp = 8;
  llvm_add_counts(obj, nf, df);
  EXPECT_EQ(obj.errors, "file checksums do not match: 7 != 8\nInvalid .gcda File!\n");
}

}  // namespace
}  // namespace covkit::model
