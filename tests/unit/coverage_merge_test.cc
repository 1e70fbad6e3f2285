// model/coverage_merge: lcov's rules for adding coverage together (line
// counts sum, branches add by position, functions by name, instances by
// function) and normalization of what readers append in any order.
#include "model/coverage_merge.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace covkit::model {
namespace coverage_merge_test {

BranchCov br(int64_t count, bool executed = true) {
  BranchCov b;
  b.count = count;
  b.executed = executed;
  return b;
}

LineCov line(uint32_t n, int64_t count, std::vector<BranchCov> branches = {}) {
  LineCov l;
  l.number = n;
  l.count = count;
  l.branches = std::move(branches);
  return l;
}

FunctionCov fn(const std::string& name, uint32_t start, int64_t count) {
  FunctionCov f;
  f.name = name;
  f.start_line = start;
  f.execution_count = count;
  return f;
}

FileCov file(const std::string& path, std::vector<LineCov> lines, std::vector<FunctionCov> fns = {}) {
  FileCov f;
  f.path = path;
  f.absolute_path = "/p/" + path;
  f.lines = std::move(lines);
  f.functions = std::move(fns);
  return f;
}

std::vector<uint32_t> numbers(const FileCov& f) {
  std::vector<uint32_t> out;
  for (const LineCov& l : f.lines) out.push_back(l.number);
  return out;
}

std::vector<int64_t> counts(const FileCov& f) {
  std::vector<int64_t> out;
  for (const LineCov& l : f.lines) out.push_back(l.count);
  return out;
}

TEST(MergeFile, LineCountsSumAndLinesUnite) {
  FileCov a = file("a.c", {line(1, 2), line(3, 0), line(5, 7)});
  FileCov b = file("a.c", {line(2, 1), line(3, 4), line(5, 1)});
  merge_file(a, std::move(b));
  EXPECT_EQ(numbers(a), (std::vector<uint32_t>{1, 2, 3, 5}));
  EXPECT_EQ(counts(a), (std::vector<int64_t>{2, 1, 4, 8}));
  Totals t = totals(a);
  EXPECT_EQ(t.lines, 4);
  EXPECT_EQ(t.lines_covered, 4);
}

TEST(MergeFile, ZeroPlusZeroStaysUncovered) {
  FileCov a = file("a.c", {line(1, 0)});
  merge_file(a, file("a.c", {line(1, 0)}));
  ASSERT_EQ(a.lines.size(), 1u);
  EXPECT_EQ(a.lines[0].count, 0);
  EXPECT_EQ(totals(a).lines_covered, 0);
}

TEST(MergeFile, BranchesAddByPosition) {
  FileCov a = file("a.c", {line(4, 1, {br(1), br(0)})});
  FileCov b = file("a.c", {line(4, 2, {br(0), br(3)})});
  merge_file(a, std::move(b));
  ASSERT_EQ(a.lines.size(), 1u);
  ASSERT_EQ(a.lines[0].branches.size(), 2u);
  EXPECT_EQ(a.lines[0].branches[0].count, 1);
  EXPECT_EQ(a.lines[0].branches[1].count, 3);
  Totals t = totals(a);
  EXPECT_EQ(t.branches, 2);
  EXPECT_EQ(t.branches_covered, 2);
}

TEST(MergeFile, BranchListsOfDifferentLengths) {
  // Longer into shorter: the extra positions are added to zero.
  FileCov a = file("a.c", {line(4, 1, {br(1), br(0)})});
  merge_file(a, file("a.c", {line(4, 1, {br(2), br(0), br(5), br(0)})}));
  ASSERT_EQ(a.lines[0].branches.size(), 4u);
  EXPECT_EQ(a.lines[0].branches[0].count, 3);
  EXPECT_EQ(a.lines[0].branches[1].count, 0);
  EXPECT_EQ(a.lines[0].branches[2].count, 5);
  EXPECT_EQ(a.lines[0].branches[3].count, 0);
  EXPECT_TRUE(a.lines[0].branches[2].executed);
  // Shorter into longer: the tail is kept as it was.
  FileCov c = file("a.c", {line(4, 1, {br(1), br(0), br(6)})});
  merge_file(c, file("a.c", {line(4, 1, {br(1)})}));
  ASSERT_EQ(c.lines[0].branches.size(), 3u);
  EXPECT_EQ(c.lines[0].branches[0].count, 2);
  EXPECT_EQ(c.lines[0].branches[1].count, 0);
  EXPECT_EQ(c.lines[0].branches[2].count, 6);
  // A line without branches merged with one that has them.
  FileCov d = file("a.c", {line(4, 1)});
  merge_file(d, file("a.c", {line(4, 1, {br(0), br(1)})}));
  ASSERT_EQ(d.lines[0].branches.size(), 2u);
  EXPECT_EQ(d.lines[0].branches[1].count, 1);
  EXPECT_EQ(totals(d).branches, 2);
}

TEST(MergeFile, BranchFlagsAreOred) {
  BranchCov t = br(0, false);
  t.is_throw = true;
  BranchCov u = br(0, false);
  u.unreachable = true;
  u.fallthrough = true;
  FileCov a = file("a.c", {line(4, 0, {br(0, false), t, br(0, false)})});
  FileCov b = file("a.c", {line(4, 1, {br(2, true), br(0, false), u})});
  merge_file(a, std::move(b));
  const auto& bs = a.lines[0].branches;
  ASSERT_EQ(bs.size(), 3u);
  EXPECT_TRUE(bs[0].executed);  // ran in one part: executed
  EXPECT_EQ(bs[0].count, 2);
  EXPECT_FALSE(bs[1].executed);  // ran in neither part: still "-"
  EXPECT_TRUE(bs[1].is_throw);
  EXPECT_FALSE(bs[1].unreachable);
  EXPECT_FALSE(bs[2].executed);
  EXPECT_TRUE(bs[2].unreachable);
  EXPECT_TRUE(bs[2].fallthrough);
  EXPECT_FALSE(bs[2].is_throw);
}

TEST(MergeFile, LineFlagsAreOred) {
  LineCov l1 = line(2, 0);
  l1.unexecuted_block = true;
  LineCov l2 = line(2, 3);
  l2.excluded = true;
  FileCov a = file("a.c", {l1});
  merge_file(a, file("a.c", {l2}));
  ASSERT_EQ(a.lines.size(), 1u);
  EXPECT_EQ(a.lines[0].count, 3);
  EXPECT_TRUE(a.lines[0].unexecuted_block);
  EXPECT_TRUE(a.lines[0].excluded);
  EXPECT_EQ(totals(a).lines, 0);
}

TEST(MergeFile, FunctionsMergeByName) {
  FunctionCov f1 = fn("_Z1fv", 3, 2);
  f1.blocks = 4;
  f1.blocks_executed = 2;
  FunctionCov f2 = fn("_Z1fv", 3, 5);
  f2.demangled = "f()";
  f2.end_line = 9;
  f2.end_column = 1;
  f2.blocks = 4;
  f2.blocks_executed = 3;
  FileCov a = file("a.c", {}, {f1, fn("main", 10, 1)});
  a.functions[0].demangled = "";
  merge_file(a, file("a.c", {}, {f2, fn("_Z1gv", 1, 0)}));
  ASSERT_EQ(a.functions.size(), 3u);
  EXPECT_EQ(a.functions[0].name, "_Z1gv");  // sorted by start line
  EXPECT_EQ(a.functions[0].execution_count, 0);
  EXPECT_EQ(a.functions[1].name, "_Z1fv");
  EXPECT_EQ(a.functions[1].execution_count, 7);
  EXPECT_EQ(a.functions[1].demangled, "f()");  // taken from the part that has it
  EXPECT_EQ(a.functions[1].end_line, 9u);
  EXPECT_EQ(a.functions[1].end_column, 1u);
  EXPECT_EQ(a.functions[1].blocks, 4u);
  EXPECT_EQ(a.functions[1].blocks_executed, 3u);  // the best part (blocks cannot be matched up)
  EXPECT_EQ(a.functions[2].name, "main");
  Totals t = totals(a);
  EXPECT_EQ(t.functions, 3);
  EXPECT_EQ(t.functions_covered, 2);
}

TEST(MergeFile, FunctionKeepsItsFirstDemangledNameAndEnd) {
  FunctionCov f1 = fn("_Z1fv", 3, 1);
  f1.demangled = "f()";
  f1.end_line = 5;
  FunctionCov f2 = fn("_Z1fv", 3, 1);
  f2.demangled = "other";
  f2.end_line = 8;
  f2.excluded = true;
  FileCov a = file("a.c", {}, {f1});
  merge_file(a, file("a.c", {}, {f2}));
  ASSERT_EQ(a.functions.size(), 1u);
  EXPECT_EQ(a.functions[0].demangled, "f()");
  EXPECT_EQ(a.functions[0].end_line, 5u);
  EXPECT_EQ(a.functions[0].execution_count, 2);
  EXPECT_TRUE(a.functions[0].excluded);
}

TEST(MergeFile, SameNameOnDifferentLinesIsOneFunction) {
  // Functions are keyed by name only, as lcov keys FN records.
  FileCov a = file("a.c", {}, {fn("f", 3, 1)});
  merge_file(a, file("a.c", {}, {fn("f", 7, 2)}));
  ASSERT_EQ(a.functions.size(), 1u);
  EXPECT_EQ(a.functions[0].start_line, 3u);
  EXPECT_EQ(a.functions[0].execution_count, 3);
}

TEST(MergeFile, InstancesMergeByFunction) {
  LineCov l1 = line(5, 3);
  l1.instances = {{"_Z1fIiEvv", 1}, {"_Z1fIdEvv", 2}};
  LineCov l2 = line(5, 10);
  l2.instances = {{"_Z1fIdEvv", 4}, {"_Z1fIcEvv", 6}};
  FileCov a = file("a.cc", {l1});
  merge_file(a, file("a.cc", {l2}));
  ASSERT_EQ(a.lines.size(), 1u);
  EXPECT_EQ(a.lines[0].count, 13);
  const auto& in = a.lines[0].instances;
  ASSERT_EQ(in.size(), 3u);
  EXPECT_EQ(in[0].function, "_Z1fIiEvv");
  EXPECT_EQ(in[0].count, 1);
  EXPECT_EQ(in[1].function, "_Z1fIdEvv");
  EXPECT_EQ(in[1].count, 6);
  EXPECT_EQ(in[2].function, "_Z1fIcEvv");
  EXPECT_EQ(in[2].count, 6);
}

TEST(MergeFile, AbsolutePathIsTakenWhenMissing) {
  FileCov a = file("a.c", {line(1, 1)});
  a.absolute_path.clear();
  FileCov b = file("a.c", {line(1, 1)});
  b.absolute_path = "/other/a.c";
  merge_file(a, std::move(b));
  EXPECT_EQ(a.absolute_path, "/other/a.c");
  FileCov c = file("a.c", {line(1, 1)});
  merge_file(c, file("a.c", {line(1, 1)}));
  EXPECT_EQ(c.absolute_path, "/p/a.c");
}

TEST(Normalize, SortsAndDedupesLines) {
  FileCov f = file("a.c", {line(9, 1), line(2, 1, {br(1)}), line(9, 2), line(4, 0), line(2, 5, {br(0), br(2)}),
                           line(9, 3)});
  normalize(f);
  EXPECT_EQ(numbers(f), (std::vector<uint32_t>{2, 4, 9}));
  EXPECT_EQ(counts(f), (std::vector<int64_t>{6, 0, 6}));
  ASSERT_EQ(f.lines[0].branches.size(), 2u);
  EXPECT_EQ(f.lines[0].branches[0].count, 1);
  EXPECT_EQ(f.lines[0].branches[1].count, 2);
}

TEST(Normalize, SortsAndDedupesFunctions) {
  FileCov f = file("a.c", {}, {fn("z", 1, 1), fn("b", 5, 1), fn("a", 5, 0), fn("z", 1, 2), fn("b", 5, 4)});
  normalize(f);
  ASSERT_EQ(f.functions.size(), 3u);
  EXPECT_EQ(f.functions[0].name, "z");
  EXPECT_EQ(f.functions[0].execution_count, 3);
  EXPECT_EQ(f.functions[1].name, "a");  // same line: by name
  EXPECT_EQ(f.functions[2].name, "b");
  EXPECT_EQ(f.functions[2].execution_count, 5);
}

TEST(Normalize, ClangVariantsOfOneNameAtTwoPlacesStayApart) {
  // Clang's records (with regions) of one name at two places of a file are
  // #if'ed variants: llvm-cov lists each, with its own regions. At one
  // place they are one function, counts added; gcov's (no regions) merge by
  // name alone.
  FunctionCov a = fn("f", 3, 1), b = fn("f", 9, 2), c = fn("f", 3, 4);
  a.regions = 2, b.regions = 5, c.regions = 2;
  a.regions_covered = 1, b.regions_covered = 5, c.regions_covered = 2;
  FileCov f = file("a.c", {}, {a, b, c, fn("g", 1, 1), fn("g", 7, 1)});
  normalize(f);
  ASSERT_EQ(f.functions.size(), 3u);
  EXPECT_EQ(f.functions[0].name, "g");
  EXPECT_EQ(f.functions[0].execution_count, 2);
  EXPECT_EQ(f.functions[1].name, "f");
  EXPECT_EQ(f.functions[1].start_line, 3u);
  EXPECT_EQ(f.functions[1].execution_count, 5);
  EXPECT_EQ(f.functions[1].regions_covered, 2u);
  EXPECT_EQ(f.functions[2].name, "f");
  EXPECT_EQ(f.functions[2].start_line, 9u);
  EXPECT_EQ(f.functions[2].execution_count, 2);
  EXPECT_EQ(f.functions[2].regions, 5u);
}

TEST(Normalize, ProjectMergesFilesWithOnePath) {
  ProjectCov p;
  p.files = {file("b.c", {line(1, 1)}), file("a.c", {line(2, 1)}), file("b.c", {line(1, 2), line(3, 0)}),
             file("a.c", {line(2, 4)})};
  normalize(p);
  ASSERT_EQ(p.files.size(), 2u);
  EXPECT_EQ(p.files[0].path, "a.c");
  EXPECT_EQ(counts(p.files[0]), (std::vector<int64_t>{5}));
  EXPECT_EQ(p.files[1].path, "b.c");
  EXPECT_EQ(numbers(p.files[1]), (std::vector<uint32_t>{1, 3}));
  EXPECT_EQ(counts(p.files[1]), (std::vector<int64_t>{3, 0}));
}

// GCC 12 lists <iostream> with no line and no function in every object that
// includes it, clang a header whose implicit members have no lines with
// those functions only; lcov drops records without lines when it reads them,
// and so does a project built from gcov's counts.
TEST(DropFilesWithoutLines, OnlyFilesWithLinesStay) {
  ProjectCov p;
  p.files = {file("iostream", {}), file("a.c", {line(1, 1)}), file("decl.h", {}), file("dtor.h", {}, {fn("d", 3, 7)}),
             file("b.c", {line(2, 0)}, {fn("f", 2, 0)})};
  normalize(p);
  drop_files_without_lines(p);
  ASSERT_EQ(p.files.size(), 2u);
  EXPECT_EQ(p.files[0].path, "a.c");
  EXPECT_EQ(p.files[1].path, "b.c");
  // After normalize: one object's functions count when another object gives
  // the source lines (a header's destructor that clang compiled without
  // lines in one translation unit).
  ProjectCov split;
  split.files = {file("h.h", {}, {fn("d", 3, 7)}), file("h.h", {line(3, 0)}, {fn("d", 3, 0)})};
  normalize(split);
  drop_files_without_lines(split);
  ASSERT_EQ(split.files.size(), 1u);
  ASSERT_EQ(split.files[0].functions.size(), 1u);
  EXPECT_EQ(split.files[0].functions[0].execution_count, 7);
}

TEST(Normalize, SingleFileOfUnsortedLinesIsSorted) {
  ProjectCov p;
  p.files = {file("a.c", {line(3, 1), line(1, 1), line(2, 0)})};
  normalize(p);
  EXPECT_EQ(numbers(p.files[0]), (std::vector<uint32_t>{1, 2, 3}));
}

TEST(MergeProject, SameDataTwiceDoublesCountsOnly) {
  auto make = [] {
    ProjectCov p;
    p.files = {file("a.c", {line(1, 1, {br(1), br(0)}), line(2, 0)}, {fn("f", 1, 1), fn("g", 2, 0)}),
               file("b.c", {line(1, 4)})};
    return p;
  };
  ProjectCov p = make();
  const Totals before = totals(p);
  merge_project(p, make());
  const Totals after = totals(p);
  EXPECT_EQ(after.lines, before.lines);
  EXPECT_EQ(after.lines_covered, before.lines_covered);
  EXPECT_EQ(after.branches, before.branches);
  EXPECT_EQ(after.branches_covered, before.branches_covered);
  EXPECT_EQ(after.functions, before.functions);
  EXPECT_EQ(after.functions_covered, before.functions_covered);
  ASSERT_EQ(p.files.size(), 2u);
  EXPECT_EQ(counts(p.files[0]), (std::vector<int64_t>{2, 0}));
  EXPECT_EQ(p.files[0].lines[0].branches[0].count, 2);
  EXPECT_EQ(p.files[0].functions[0].execution_count, 2);
  EXPECT_EQ(counts(p.files[1]), (std::vector<int64_t>{8}));
}

TEST(MergeProject, NewFilesAreInsertedInPathOrder) {
  ProjectCov p;
  p.files = {file("b.c", {line(1, 1)})};
  ProjectCov q;
  q.files = {file("c.c", {line(1, 1)}), file("a.c", {line(1, 0)})};
  merge_project(p, std::move(q));
  ASSERT_EQ(p.files.size(), 3u);
  EXPECT_EQ(p.files[0].path, "a.c");
  EXPECT_EQ(p.files[1].path, "b.c");
  EXPECT_EQ(p.files[2].path, "c.c");
  merge_project(p, ProjectCov{});
  EXPECT_EQ(p.files.size(), 3u);
}

}  // namespace
}  // namespace covkit::model

namespace covkit::model {
namespace coverage_merge_test {

LineCov inferred_line(uint32_t n, int64_t count, bool inferred) {
  LineCov l = line(n, count);
  l.inferred = inferred;
  return l;
}

// covkit sample: a line stays "inferred" only while no merged part saw it run.
TEST(MergeFile, InferredOnlyWhileNoPartObservedTheLine) {
  FileCov a = file("a.c", {inferred_line(1, 1, true), inferred_line(2, 1, true), inferred_line(3, 0, false),
                           inferred_line(4, 2, false)});
  merge_file(a, file("a.c", {inferred_line(1, 1, true), inferred_line(2, 3, false), inferred_line(3, 1, true),
                             inferred_line(4, 1, true)}));
  ASSERT_EQ(a.lines.size(), 4u);
  EXPECT_TRUE(a.lines[0].inferred);   // inferred in both
  EXPECT_FALSE(a.lines[1].inferred);  // observed in the second
  EXPECT_TRUE(a.lines[2].inferred);   // not covered in the first: the second decides
  EXPECT_FALSE(a.lines[3].inferred);  // observed in the first
  EXPECT_EQ(counts(a), (std::vector<int64_t>{2, 4, 1, 3}));
}

// normalize(ProjectCov) merges each group of copies straight from the
// copies; the result must be what merging them one after another gives
// (merge_file into the first, files sorted by path then absolute path, a
// copy without an absolute path joining any). Random copies: lines out of
// order, repeated and sparse numbers, branches of different lengths,
// functions of shared names, absolute paths present, absent and different.
TEST(Normalize, CopiesMergeAsOneAfterAnother) {
  std::mt19937 rng(36);
  auto pick = [&](uint32_t n) { return uint32_t(rng() % n); };
  for (int round = 0; round < 300; ++round) {
    ProjectCov p;
    const uint32_t nfiles = 1 + pick(12);
    for (uint32_t i = 0; i < nfiles; ++i) {
      FileCov f;
      f.path = std::string(1, char('a' + pick(3))) + ".h";
      const uint32_t abs = pick(4);
      f.absolute_path = abs == 0 ? "" : "/src/" + std::to_string(abs == 3 ? 2 : 1) + "/" + f.path;
      const uint32_t top = pick(4) == 0 ? 100000 : 30;  // sometimes too sparse for a table
      for (uint32_t n = pick(8); n > 0; --n) {
        std::vector<BranchCov> branches;
        for (uint32_t b = pick(3); b > 0; --b) branches.push_back(br(pick(3), pick(2) == 0));
        LineCov l = line(pick(top), pick(3), branches);
        l.unexecuted_block = pick(2) == 0;
        if (pick(3) == 0) l.instances.push_back({"inst" + std::to_string(pick(2)), pick(4)});
        f.lines.push_back(std::move(l));
      }
      for (uint32_t n = pick(4); n > 0; --n) {
        FunctionCov fc = fn("f" + std::to_string(pick(4)), pick(30), pick(3));
        fc.blocks = pick(5);
        fc.demangled = pick(2) ? "" : "d" + fc.name;
        f.functions.push_back(std::move(fc));
      }
      p.files.push_back(std::move(f));
    }
    // The expected result: sorted as normalize sorts, each file merged into
    // the group's first by merge_file.
    std::vector<FileCov> sorted = p.files;
    std::stable_sort(sorted.begin(), sorted.end(), [](const FileCov& a, const FileCov& b) {
      return a.path != b.path ? a.path < b.path : a.absolute_path < b.absolute_path;
    });
    std::vector<FileCov> expected;
    for (FileCov& f : sorted) {
      if (!expected.empty() && expected.back().path == f.path &&
          (expected.back().absolute_path == f.absolute_path || expected.back().absolute_path.empty() ||
           f.absolute_path.empty())) {
        merge_file(expected.back(), std::move(f));
      } else {
        normalize(f);
        expected.push_back(std::move(f));
      }
    }
    for (unsigned threads : {1u, 2u}) {
      ProjectCov q = p;
      normalize(q, threads);
      ProjectCov e;
      e.files = expected;
      // The same renaming step as normalize's for names left twice.
      for (size_t i = 1; i < e.files.size(); ++i)
        if (e.files[i - 1].path == e.files[i].path)
          for (FileCov* f : {&e.files[i - 1], &e.files[i]})
            if (!f->absolute_path.empty()) f->path = f->absolute_path;
      std::stable_sort(e.files.begin(), e.files.end(), [](const FileCov& a, const FileCov& b) {
        return a.path != b.path ? a.path < b.path : a.absolute_path < b.absolute_path;
      });
      ASSERT_EQ(q.files.size(), e.files.size()) << "round " << round;
      for (size_t i = 0; i < q.files.size(); ++i) {
        const FileCov& got = q.files[i];
        const FileCov& want = e.files[i];
        EXPECT_EQ(got.path, want.path) << "round " << round;
        EXPECT_EQ(got.absolute_path, want.absolute_path) << "round " << round;
        ASSERT_EQ(got.lines.size(), want.lines.size()) << "round " << round << " " << got.path;
        for (size_t k = 0; k < got.lines.size(); ++k) {
          const LineCov& a = got.lines[k];
          const LineCov& b = want.lines[k];
          EXPECT_EQ(a.number, b.number);
          EXPECT_EQ(a.count, b.count);
          EXPECT_EQ(a.unexecuted_block, b.unexecuted_block);
          ASSERT_EQ(a.branches.size(), b.branches.size());
          for (size_t j = 0; j < a.branches.size(); ++j) {
            EXPECT_EQ(a.branches[j].count, b.branches[j].count);
            EXPECT_EQ(a.branches[j].executed, b.branches[j].executed);
          }
          ASSERT_EQ(a.instances.size(), b.instances.size());
          for (size_t j = 0; j < a.instances.size(); ++j) {
            EXPECT_EQ(a.instances[j].function, b.instances[j].function);
            EXPECT_EQ(a.instances[j].count, b.instances[j].count);
          }
        }
        ASSERT_EQ(got.functions.size(), want.functions.size()) << "round " << round;
        for (size_t k = 0; k < got.functions.size(); ++k) {
          EXPECT_EQ(got.functions[k].name, want.functions[k].name);
          EXPECT_EQ(got.functions[k].demangled, want.functions[k].demangled);
          EXPECT_EQ(got.functions[k].start_line, want.functions[k].start_line);
          EXPECT_EQ(got.functions[k].execution_count, want.functions[k].execution_count);
          EXPECT_EQ(got.functions[k].blocks, want.functions[k].blocks);
        }
      }
    }
  }
}

}  // namespace
}  // namespace covkit::model
