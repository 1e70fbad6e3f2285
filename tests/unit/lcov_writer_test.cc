// report/lcov_writer: the exact tracefile text lcov writes for a merged file.
#include "report/lcov_writer.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace covkit::report {
namespace lcov_writer_test {

using model::BranchCov;
using model::FileCov;
using model::FunctionCov;
using model::LineCov;
using model::ProjectCov;

BranchCov br(int64_t count, bool executed) {
  BranchCov b;
  b.count = count;
  b.executed = executed;
  return b;
}

LineCov line(uint32_t n, int64_t count, std::vector<BranchCov> branches = {}, bool excluded = false) {
  LineCov l;
  l.number = n;
  l.count = count;
  l.branches = std::move(branches);
  l.excluded = excluded;
  return l;
}

FunctionCov fn(const std::string& name, uint32_t start, int64_t count, bool excluded = false) {
  FunctionCov f;
  f.name = name;
  f.start_line = start;
  f.execution_count = count;
  f.excluded = excluded;
  return f;
}

ProjectCov sample() {
  ProjectCov p;
  FileCov a;
  a.path = "a.c";
  a.absolute_path = "/p/a.c";
  a.functions = {fn("f", 1, 2), fn("_Z1gv", 5, 0), fn("h", 8, 1, true)};
  a.lines = {line(1, 2, {br(2, true), br(0, true)}), line(2, 0, {br(0, false), br(0, false)}), line(5, 0),
             line(8, 1, {br(1, true)}, true), line(9, 3, {br(0, true), br(3, true), br(1, true)})};
  FileCov b;
  b.path = "b.c";  // no absolute path: SF falls back to the displayed one
  b.lines = {line(3, 7), line(4, 0, {}, true)};
  p.files = {a, b};
  return p;
}

TEST(LcovWriter, WholeTracefile) {
  const std::string expected =
      "TN:unit\n"
      "SF:/p/a.c\n"
      "FN:1,f\n"
      "FN:5,_Z1gv\n"
      "FNDA:2,f\n"
      "FNDA:0,_Z1gv\n"
      "FNF:2\n"
      "FNH:1\n"
      "BRDA:1,0,0,2\n"
      "BRDA:1,0,1,0\n"
      "BRDA:2,0,0,-\n"
      "BRDA:2,0,1,-\n"
      "BRDA:9,0,0,0\n"
      "BRDA:9,0,1,3\n"
      "BRDA:9,0,2,1\n"
      "BRF:7\n"
      "BRH:3\n"
      "DA:1,2\n"
      "DA:2,0\n"
      "DA:5,0\n"
      "DA:9,3\n"
      "LF:4\n"
      "LH:2\n"
      "end_of_record\n"
      "TN:unit\n"
      "SF:b.c\n"
      "FNF:0\n"
      "FNH:0\n"
      "DA:3,7\n"
      "LF:1\n"
      "LH:1\n"
      "end_of_record\n";
  EXPECT_EQ(render_lcov(sample(), {"unit"}), expected);
}

TEST(LcovWriter, EmptyTestNameAndDefaultOptions) {
  ProjectCov p;
  FileCov f;
  f.path = "x.c";
  f.absolute_path = "/x.c";
  f.lines = {line(1, 0)};
  p.files = {f};
  const std::string expected =
      "TN:\n"
      "SF:/x.c\n"
      "FNF:0\n"
      "FNH:0\n"
      "DA:1,0\n"
      "LF:1\n"
      "LH:0\n"
      "end_of_record\n";
  EXPECT_EQ(render_lcov(p), expected);
  EXPECT_EQ(render_lcov(p, {""}), expected);
}

TEST(LcovWriter, BranchesOfALineWithoutCountHaveNoDa) {
  // llvm-cov's shape: BRDA for a condition on a line it counts no line for.
  ProjectCov p;
  FileCov f;
  f.path = "x.c";
  f.absolute_path = "/x.c";
  f.lines = {line(1, 3), line(2, 0, {br(3, true), br(0, true)})};
  f.lines[1].no_count = true;
  p.files = {f};
  const std::string expected =
      "TN:\n"
      "SF:/x.c\n"
      "FNF:0\n"
      "FNH:0\n"
      "BRDA:2,0,0,3\n"
      "BRDA:2,0,1,0\n"
      "BRF:2\n"
      "BRH:1\n"
      "DA:1,3\n"
      "LF:1\n"
      "LH:1\n"
      "end_of_record\n";
  EXPECT_EQ(render_lcov(p), expected);
}

TEST(LcovWriter, EmptyProjectIsEmptyText) { EXPECT_EQ(render_lcov(ProjectCov{}, {"t"}), ""); }

TEST(LcovWriter, BranchesOnlyOnExcludedLinesGiveNoBrfBrh) {
  ProjectCov p;
  FileCov f;
  f.path = "x.c";
  f.absolute_path = "/x.c";
  f.lines = {line(1, 1), line(2, 1, {br(1, true), br(0, true)}, true)};
  f.functions = {fn("only", 2, 1, true)};
  p.files = {f};
  const std::string expected =
      "TN:\n"
      "SF:/x.c\n"
      "FNF:0\n"
      "FNH:0\n"
      "DA:1,1\n"
      "LF:1\n"
      "LH:1\n"
      "end_of_record\n";
  EXPECT_EQ(render_lcov(p), expected);
}

TEST(LcovWriter, ExecutedBranchWithZeroCountIsZeroNotDash) {
  ProjectCov p;
  FileCov f;
  f.path = "x.c";
  f.absolute_path = "/x.c";
  f.lines = {line(4, 1, {br(0, true)}), line(6, 0, {br(0, false)})};
  p.files = {f};
  const std::string text = render_lcov(p);
  EXPECT_NE(text.find("BRDA:4,0,0,0\nBRDA:6,0,0,-\nBRF:2\nBRH:0\n"), std::string::npos) << text;
}

// Streamed, the text comes in pieces that end at a record's end and add up
// to the text render_lcov makes in one string.
TEST(LcovWriter, StreamedPiecesAddUpToTheWholeText) {
  ProjectCov p;
  for (int i = 0; i < 400; ++i) {
    FileCov f;
    f.path = "src/f" + std::to_string(i) + ".c";
    f.absolute_path = "/p/" + f.path;
    f.functions = {fn("f" + std::to_string(i), 1, i % 3)};
    for (uint32_t n = 1; n <= 60; ++n) f.lines.push_back(line(n, n % 4, {br(n % 2, true), br(0, n % 3 != 0)}));
    p.files.push_back(std::move(f));
  }
  std::vector<std::string> pieces;
  stream_lcov(p, {"t"}, [&](std::string_view piece) { pieces.emplace_back(piece); });
  ASSERT_GT(pieces.size(), 2u);  // several pieces of kTextPiece bytes, not one string
  std::string whole;
  for (const std::string& piece : pieces) {
    EXPECT_TRUE(piece.ends_with("end_of_record\n"));
    whole += piece;
  }
  EXPECT_EQ(whole, render_lcov(p, {"t"}));
  pieces.clear();
  stream_lcov(ProjectCov{}, {"t"}, [&](std::string_view piece) { pieces.emplace_back(piece); });
  EXPECT_TRUE(pieces.empty());  // nothing to write: no empty piece either
}

}  // namespace
}  // namespace covkit::report
