// model/coverage_filters: dropping throw/unreachable branches by their arc
// flags, and restricting a project to a set of lines (diff coverage).
#include "model/coverage_filters.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

namespace covkit::model {
namespace coverage_filters_test {

BranchCov br(int64_t count, bool is_throw = false, bool unreachable = false) {
  BranchCov b;
  b.count = count;
  b.executed = true;
  b.is_throw = is_throw;
  b.unreachable = unreachable;
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

// Line 1: normal, throw, unreachable, throw+unreachable; line 2: normal only.
ProjectCov branchy() {
  ProjectCov p;
  FileCov f;
  f.path = "a.cc";
  f.lines = {line(1, 1, {br(1), br(0, true), br(2, false, true), br(0, true, true)}), line(2, 1, {br(3), br(0)})};
  p.files.push_back(f);
  return p;
}

std::vector<int64_t> branch_counts(const LineCov& l) {
  std::vector<int64_t> out;
  for (const BranchCov& b : l.branches) out.push_back(b.count);
  return out;
}

TEST(FilterBranches, NothingAskedNothingDropped) {
  ProjectCov p = branchy();
  filter_branches(p, {});
  EXPECT_EQ(branch_counts(p.files[0].lines[0]), (std::vector<int64_t>{1, 0, 2, 0}));
  EXPECT_EQ(totals(p).branches, 6);
}

TEST(FilterBranches, ThrowBranches) {
  ProjectCov p = branchy();
  filter_branches(p, {true, false});
  ASSERT_EQ(p.files[0].lines[0].branches.size(), 2u);
  EXPECT_EQ(branch_counts(p.files[0].lines[0]), (std::vector<int64_t>{1, 2}));
  EXPECT_TRUE(p.files[0].lines[0].branches[1].unreachable);
  EXPECT_EQ(branch_counts(p.files[0].lines[1]), (std::vector<int64_t>{3, 0}));
  Totals t = totals(p);
  EXPECT_EQ(t.branches, 4);
  EXPECT_EQ(t.branches_covered, 3);
  EXPECT_EQ(t.lines, 2);  // lines are untouched
}

TEST(FilterBranches, UnreachableBranches) {
  ProjectCov p = branchy();
  filter_branches(p, {false, true});
  ASSERT_EQ(p.files[0].lines[0].branches.size(), 2u);
  EXPECT_EQ(branch_counts(p.files[0].lines[0]), (std::vector<int64_t>{1, 0}));
  EXPECT_TRUE(p.files[0].lines[0].branches[1].is_throw);
  EXPECT_EQ(totals(p).branches, 4);
}

TEST(FilterBranches, Both) {
  ProjectCov p = branchy();
  filter_branches(p, {true, true});
  EXPECT_EQ(branch_counts(p.files[0].lines[0]), (std::vector<int64_t>{1}));
  EXPECT_EQ(branch_counts(p.files[0].lines[1]), (std::vector<int64_t>{3, 0}));
  Totals t = totals(p);
  EXPECT_EQ(t.branches, 3);
  EXPECT_EQ(t.branches_covered, 2);
}

ProjectCov two_files() {
  ProjectCov p;
  FileCov a;
  a.path = "a.c";
  a.absolute_path = "/p/a.c";
  a.lines = {line(1, 1), line(2, 0), line(3, 4), line(7, 0)};
  a.functions = {fn("f", 1, 1), fn("g", 3, 4), fn("h", 7, 0)};
  FileCov b;
  b.path = "b.c";
  b.absolute_path = "/p/b.c";
  b.lines = {line(1, 1), line(2, 1)};
  b.functions = {fn("k", 1, 1)};
  p.files = {a, b};
  return p;
}

TEST(RestrictLines, KeepsOnlyChosenLinesAndMarksFunctions) {
  ProjectCov p = two_files();
  restrict_lines(p, [](const FileCov& f, uint32_t n) { return f.path == "a.c" && (n == 2 || n == 3); });
  ASSERT_EQ(p.files.size(), 1u);  // b.c has no line left
  const FileCov& a = p.files[0];
  EXPECT_EQ(a.path, "a.c");
  ASSERT_EQ(a.lines.size(), 4u);  // excluded lines stay in the model
  EXPECT_TRUE(a.lines[0].excluded);
  EXPECT_FALSE(a.lines[1].excluded);
  EXPECT_FALSE(a.lines[2].excluded);
  EXPECT_TRUE(a.lines[3].excluded);
  EXPECT_TRUE(a.functions[0].excluded);
  EXPECT_FALSE(a.functions[1].excluded);  // starts on line 3
  EXPECT_TRUE(a.functions[2].excluded);
  Totals t = totals(p);
  EXPECT_EQ(t.lines, 2);
  EXPECT_EQ(t.lines_covered, 1);
  EXPECT_EQ(t.functions, 1);
  EXPECT_EQ(t.functions_covered, 1);
}

TEST(RestrictLines, KeepEverything) {
  ProjectCov p = two_files();
  restrict_lines(p, [](const FileCov&, uint32_t) { return true; });
  ASSERT_EQ(p.files.size(), 2u);
  Totals t = totals(p);
  EXPECT_EQ(t.lines, 6);
  EXPECT_EQ(t.functions, 4);
}

TEST(RestrictLines, KeepNothingDropsAllFiles) {
  ProjectCov p = two_files();
  restrict_lines(p, [](const FileCov&, uint32_t) { return false; });
  EXPECT_TRUE(p.files.empty());
}

TEST(RestrictLines, AlreadyExcludedLinesStayExcluded) {
  ProjectCov p = two_files();
  p.files[0].lines[2].excluded = true;  // e.g. by a marker
  restrict_lines(p, [](const FileCov& f, uint32_t n) { return f.path == "a.c" && n == 3; });
  // a.c's only kept line was excluded already: nothing left, the file goes.
  EXPECT_TRUE(p.files.empty());
}

TEST(RestrictLines, PredicateSeesTheFile) {
  ProjectCov p = two_files();
  std::vector<std::string> seen;
  restrict_lines(p, [&](const FileCov& f, uint32_t n) {
    seen.push_back(f.absolute_path + ":" + std::to_string(n));
    return true;
  });
  // Every line and every function's first line, in any order.
  std::sort(seen.begin(), seen.end());
  const std::vector<std::string> expected = {"/p/a.c:1", "/p/a.c:1", "/p/a.c:2", "/p/a.c:3", "/p/a.c:3",
                                             "/p/a.c:7", "/p/a.c:7", "/p/b.c:1", "/p/b.c:1", "/p/b.c:2"};
  EXPECT_EQ(seen, expected);
}

}  // namespace
}  // namespace covkit::model
