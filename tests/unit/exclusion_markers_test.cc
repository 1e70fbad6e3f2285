// model/exclusion_markers: LCOV_EXCL_* / GCOVR_EXCL_* / GCOV_EXCL_* markers
// with lcov 1.16's semantics (a region starts on its START line and ends
// before its STOP line; STOP is checked before START on the same line), their
// warnings, and their effect on lines, functions and branches.
#include "model/exclusion_markers.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace covkit::model {
namespace exclusion_markers_test {

using R = ExclusionRegions;

// Source of `n` lines; line i (1-based) holds `marks[i]` when given.
std::string source(size_t n, const std::vector<std::pair<uint32_t, std::string>>& marks) {
  std::vector<std::string> lines(n, "  x++;");
  for (auto& [ln, text] : marks) lines[ln - 1] = text;
  std::string out;
  for (auto& l : lines) out += l + "\n";
  return out;
}

std::vector<uint32_t> excluded_lines(const R& r) {
  std::vector<uint32_t> out;
  for (uint32_t i = 1; i < r.line.size(); ++i)
    if (r.line[i]) out.push_back(i);
  return out;
}

std::vector<uint32_t> branch_lines(const R& r, uint8_t kind) {
  std::vector<uint32_t> out;
  for (uint32_t i = 1; i < r.branch.size(); ++i)
    if (r.branch[i] == kind) out.push_back(i);
  return out;
}

using V = std::vector<uint32_t>;

TEST(FindExclusions, NoMarkers) {
  R r = find_exclusions(source(4, {}), "a.c");
  EXPECT_EQ(r.line.size(), 5u);  // [0] unused
  EXPECT_EQ(r.branch.size(), 5u);
  EXPECT_EQ(excluded_lines(r), V{});
  EXPECT_EQ(branch_lines(r, R::kKeep), (V{1, 2, 3, 4}));
  EXPECT_TRUE(r.warnings.empty());
}

TEST(FindExclusions, LastLineWithoutNewlineCounts) {
  R r = find_exclusions("a\nb // LCOV_EXCL_LINE", "a.c");
  EXPECT_EQ(r.line.size(), 3u);
  EXPECT_EQ(excluded_lines(r), V{2});
}

// The scan looks for "_EXCL_" 16 bytes at a time and counts the lines
// between markers in bulk: a marker at every offset from a block's start,
// after lines of every length full of look-alikes ("_EX", "EXCL", "_EXCL"
// without its last '_'), on a last line with and without its newline.
TEST(FindExclusions, MarkerAtEveryOffset) {
  for (size_t pad = 0; pad < 40; ++pad) {
    for (bool last_newline : {true, false}) {
      std::string text;
      for (size_t i = 0; i < 5; ++i) text += std::string(pad + i, '_') + "EX_EXCL EXCLX _EXCL\n";
      text += std::string(pad, ' ') + "f(); // LCOV_EXCL_LINE\n";  // line 6
      text += std::string(pad % 7, 'E') + "_EXC_\n";  // line 7
      text += std::string(pad, 'X') + "/* GCOVR_EXCL_LINE */";  // line 8
      if (last_newline) text += "\n";
      const R r = find_exclusions(text, "t.c");
      SCOPED_TRACE("pad " + std::to_string(pad) + (last_newline ? "" : ", no newline at the end"));
      EXPECT_EQ(r.line.size(), 9u);
      EXPECT_EQ(excluded_lines(r), (V{6, 8}));
      EXPECT_TRUE(r.warnings.empty());
    }
  }
}

TEST(FindExclusions, CrlfLines) {
  R r = find_exclusions("a\r\nb // LCOV_EXCL_LINE\r\nc\r\n", "a.c");
  EXPECT_EQ(excluded_lines(r), V{2});
  EXPECT_EQ(r.line.size(), 4u);
}

TEST(FindExclusions, LineMarkerEverySpelling) {
  for (const char* prefix : {"LCOV_EXCL_", "GCOVR_EXCL_", "GCOV_EXCL_"}) {
    R r = find_exclusions(source(3, {{2, std::string("  f(); // ") + prefix + "LINE"}}), "a.c");
    EXPECT_EQ(excluded_lines(r), V{2}) << prefix;
    EXPECT_EQ(branch_lines(r, R::kKeep), (V{1, 2, 3})) << prefix;  // the line marker covers branches via the line
    EXPECT_TRUE(r.warnings.empty()) << prefix;
  }
}

TEST(FindExclusions, RegionStartsOnStartAndEndsBeforeStop) {
  for (const char* prefix : {"LCOV_EXCL_", "GCOVR_EXCL_", "GCOV_EXCL_"}) {
    const std::string p = prefix;
    R r = find_exclusions(source(7, {{2, "/* " + p + "START */"}, {5, "/* " + p + "STOP */"}}), "a.c");
    EXPECT_EQ(excluded_lines(r), (V{2, 3, 4})) << prefix;
    EXPECT_TRUE(r.warnings.empty()) << prefix;
  }
}

TEST(FindExclusions, StopBeforeStartOnOneLine) {
  // A line with STOP and START closes the region: it is outside, the next region starts after it.
  R r = find_exclusions(
      source(6, {{1, "// LCOV_EXCL_START"}, {3, "// LCOV_EXCL_STOP LCOV_EXCL_START"}, {5, "// LCOV_EXCL_STOP"}}),
      "a.c");
  EXPECT_EQ(excluded_lines(r), (V{1, 2}));
  // lcov: the START on the STOP line is ignored, so the second STOP has no START.
  ASSERT_EQ(r.warnings.size(), 1u);
  EXPECT_EQ(r.warnings[0], "a.c:5: LCOV_EXCL_STOP without a matching LCOV_EXCL_START");
}

TEST(FindExclusions, StartAndStopOnOneLineWithoutRegion) {
  R r = find_exclusions(source(3, {{2, "x; // LCOV_EXCL_START LCOV_EXCL_STOP"}}), "a.c");
  EXPECT_EQ(excluded_lines(r), V{});
  ASSERT_EQ(r.warnings.size(), 1u);
  EXPECT_EQ(r.warnings[0], "a.c:2: LCOV_EXCL_STOP without a matching LCOV_EXCL_START");
}

TEST(FindExclusions, LineMarkerInsideAndOutsideRegion) {
  R r = find_exclusions(source(6, {{1, "// LCOV_EXCL_START"}, {2, "// LCOV_EXCL_LINE"}, {3, "// LCOV_EXCL_STOP"},
                                   {5, "y; // LCOV_EXCL_LINE"}}),
                        "a.c");
  EXPECT_EQ(excluded_lines(r), (V{1, 2, 5}));
  EXPECT_TRUE(r.warnings.empty());
}

TEST(FindExclusions, SpellingsMixInOneRegion) {
  // The markers are one family: a GCOVR_EXCL_STOP closes an LCOV_EXCL_START.
  R r = find_exclusions(source(5, {{2, "// LCOV_EXCL_START"}, {4, "// GCOVR_EXCL_STOP"}}), "a.c");
  EXPECT_EQ(excluded_lines(r), (V{2, 3}));
  EXPECT_TRUE(r.warnings.empty());
}

TEST(FindExclusions, BranchMarkers) {
  for (const char* prefix : {"LCOV_EXCL_", "GCOVR_EXCL_", "GCOV_EXCL_"}) {
    const std::string p = prefix;
    R r = find_exclusions(
        source(8, {{1, "if (a) // " + p + "BR_LINE"}, {3, "// " + p + "BR_START"}, {6, "// " + p + "BR_STOP"}}),
        "a.c");
    EXPECT_EQ(excluded_lines(r), V{}) << prefix;  // branch markers keep the lines
    EXPECT_EQ(branch_lines(r, R::kAllBranches), (V{1, 3, 4, 5})) << prefix;
    EXPECT_EQ(branch_lines(r, R::kThrowBranches), V{}) << prefix;
    EXPECT_TRUE(r.warnings.empty()) << prefix;
  }
}

TEST(FindExclusions, ExceptionBranchMarkers) {
  for (const char* prefix : {"LCOV_EXCL_", "GCOVR_EXCL_", "GCOV_EXCL_"}) {
    const std::string p = prefix;
    R r = find_exclusions(source(7, {{1, "f(); // " + p + "EXCEPTION_BR_LINE"},
                                     {3, "// " + p + "EXCEPTION_BR_START"},
                                     {5, "// " + p + "EXCEPTION_BR_STOP"}}),
                          "a.c");
    EXPECT_EQ(excluded_lines(r), V{}) << prefix;
    EXPECT_EQ(branch_lines(r, R::kAllBranches), V{}) << prefix;
    EXPECT_EQ(branch_lines(r, R::kThrowBranches), (V{1, 3, 4})) << prefix;
    EXPECT_TRUE(r.warnings.empty()) << prefix;
  }
}

TEST(FindExclusions, AllBranchesWinOverThrowBranches) {
  R r = find_exclusions(source(4, {{1, "// LCOV_EXCL_EXCEPTION_BR_START"}, {2, "// LCOV_EXCL_BR_LINE"},
                                   {4, "// LCOV_EXCL_EXCEPTION_BR_STOP"}}),
                        "a.c");
  EXPECT_EQ(branch_lines(r, R::kAllBranches), V{2});
  EXPECT_EQ(branch_lines(r, R::kThrowBranches), (V{1, 3}));
}

TEST(FindExclusions, RegionKindsAreIndependent) {
  // A line STOP does not close a branch region, and the other way round.
  R r = find_exclusions(source(6, {{1, "// LCOV_EXCL_BR_START"}, {2, "// LCOV_EXCL_START"}, {3, "// LCOV_EXCL_STOP"},
                                   {5, "// LCOV_EXCL_BR_STOP"}}),
                        "a.c");
  EXPECT_EQ(excluded_lines(r), V{2});
  EXPECT_EQ(branch_lines(r, R::kAllBranches), (V{1, 2, 3, 4}));
  EXPECT_TRUE(r.warnings.empty());
}

TEST(FindExclusions, UnmatchedWarningsNameFileAndLine) {
  R r = find_exclusions(source(9, {{2, "// LCOV_EXCL_STOP"},
                                   {3, "// LCOV_EXCL_BR_STOP"},
                                   {4, "// LCOV_EXCL_EXCEPTION_BR_STOP"},
                                   {5, "// LCOV_EXCL_START"},
                                   {6, "// GCOVR_EXCL_START"},
                                   {7, "// LCOV_EXCL_BR_START"},
                                   {8, "// LCOV_EXCL_EXCEPTION_BR_START"}}),
                        "src/f.c");
  EXPECT_EQ(excluded_lines(r), (V{5, 6, 7, 8, 9}));  // to the end of the file
  const std::vector<std::string> expected = {
      "src/f.c:2: LCOV_EXCL_STOP without a matching LCOV_EXCL_START",
      "src/f.c:3: LCOV_EXCL_BR_STOP without a matching LCOV_EXCL_BR_START",
      "src/f.c:4: LCOV_EXCL_EXCEPTION_BR_STOP without a matching LCOV_EXCL_EXCEPTION_BR_START",
      "src/f.c:6: LCOV_EXCL_START inside the region opened at line 5",
      "src/f.c:5: LCOV_EXCL_START without a matching LCOV_EXCL_STOP; excluded to the end of the file",
      "src/f.c:7: LCOV_EXCL_BR_START without a matching LCOV_EXCL_BR_STOP; excluded to the end of the file",
      "src/f.c:8: LCOV_EXCL_EXCEPTION_BR_START without a matching LCOV_EXCL_EXCEPTION_BR_STOP; excluded to the "
      "end of the file",
  };
  EXPECT_EQ(r.warnings, expected);
}

TEST(FindExclusions, NestedStartKeepsTheOuterRegion) {
  R r = find_exclusions(source(6, {{1, "// LCOV_EXCL_START"}, {3, "// LCOV_EXCL_START"}, {4, "// LCOV_EXCL_STOP"}}),
                        "a.c");
  EXPECT_EQ(excluded_lines(r), (V{1, 2, 3}));
  ASSERT_EQ(r.warnings.size(), 1u);
  EXPECT_EQ(r.warnings[0], "a.c:3: LCOV_EXCL_START inside the region opened at line 1");
}

TEST(FindExclusions, WordsThatAreNotMarkers) {
  R r = find_exclusions(source(4, {{1, "// LCOV_EXCL_"}, {2, "// LCOV_EXCL_NOTHING"}, {3, "// lcov_excl_line"},
                                   {4, "// LCOV_EXCLUDE_LINE"}}),
                        "a.c");
  EXPECT_EQ(excluded_lines(r), V{});
  EXPECT_EQ(branch_lines(r, R::kKeep), (V{1, 2, 3, 4}));
  EXPECT_TRUE(r.warnings.empty());
}

// --- apply_exclusions -------------------------------------------------------------

BranchCov br(int64_t count, bool is_throw = false) {
  BranchCov b;
  b.count = count;
  b.executed = true;
  b.is_throw = is_throw;
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

FileCov sample_file() {
  FileCov f;
  f.path = "a.c";
  for (uint32_t n = 1; n <= 8; ++n) f.lines.push_back(line(n, n, {br(1), br(0, true), br(2)}));
  f.functions = {fn("f", 1, 1), fn("g", 3, 0), fn("h", 6, 2)};
  return f;
}

TEST(ApplyExclusions, LinesFunctionsAndTheirBranches) {
  FileCov f = sample_file();
  apply_exclusions(f, find_exclusions(source(8, {{3, "// LCOV_EXCL_START"}, {5, "// LCOV_EXCL_STOP"},
                                                   {7, "// GCOVR_EXCL_LINE"}}),
                                      "a.c"));
  ASSERT_EQ(f.lines.size(), 8u);  // excluded lines stay in the model
  for (const LineCov& l : f.lines) {
    const bool ex = l.number == 3 || l.number == 4 || l.number == 7;
    EXPECT_EQ(l.excluded, ex) << l.number;
    EXPECT_EQ(l.branches.size(), ex ? 0u : 3u) << l.number;
    EXPECT_EQ(l.count, int64_t(l.number));  // counts are not touched
  }
  EXPECT_FALSE(f.functions[0].excluded);
  EXPECT_TRUE(f.functions[1].excluded);  // starts on line 3
  EXPECT_FALSE(f.functions[2].excluded);
  Totals t = totals(f);
  EXPECT_EQ(t.lines, 5);
  EXPECT_EQ(t.lines_covered, 5);
  EXPECT_EQ(t.functions, 2);
  EXPECT_EQ(t.functions_covered, 2);
  EXPECT_EQ(t.branches, 15);
  EXPECT_EQ(t.branches_covered, 10);
}

TEST(ApplyExclusions, BranchMarkersKeepLinesAndFunctions) {
  FileCov f = sample_file();
  apply_exclusions(f, find_exclusions(source(8, {{1, "// LCOV_EXCL_BR_LINE"}, {4, "// LCOV_EXCL_BR_START"},
                                                   {6, "// LCOV_EXCL_BR_STOP"}}),
                                      "a.c"));
  for (const LineCov& l : f.lines) {
    EXPECT_FALSE(l.excluded) << l.number;
    const bool ex = l.number == 1 || l.number == 4 || l.number == 5;
    EXPECT_EQ(l.branches.size(), ex ? 0u : 3u) << l.number;
  }
  for (const FunctionCov& fn : f.functions) EXPECT_FALSE(fn.excluded) << fn.name;
  Totals t = totals(f);
  EXPECT_EQ(t.lines, 8);
  EXPECT_EQ(t.functions, 3);
  EXPECT_EQ(t.branches, 15);
}

TEST(ApplyExclusions, ExceptionMarkersDropOnlyThrowBranches) {
  FileCov f = sample_file();
  apply_exclusions(f, find_exclusions(source(8, {{2, "// LCOV_EXCL_EXCEPTION_BR_LINE"},
                                                   {5, "// GCOV_EXCL_EXCEPTION_BR_START"},
                                                   {7, "// GCOV_EXCL_EXCEPTION_BR_STOP"}}),
                                      "a.c"));
  for (const LineCov& l : f.lines) {
    EXPECT_FALSE(l.excluded);
    const bool ex = l.number == 2 || l.number == 5 || l.number == 6;
    ASSERT_EQ(l.branches.size(), ex ? 2u : 3u) << l.number;
    if (ex) {
      EXPECT_EQ(l.branches[0].count, 1);
      EXPECT_FALSE(l.branches[0].is_throw);
      EXPECT_EQ(l.branches[1].count, 2);
      EXPECT_FALSE(l.branches[1].is_throw);
    }
  }
  EXPECT_EQ(totals(f).branches, 21);
}

TEST(ApplyExclusions, LinesBeyondTheSourceAreKept) {
  FileCov f = sample_file();
  apply_exclusions(f, find_exclusions("// LCOV_EXCL_LINE\n", "a.c"));  // a one-line "source"
  EXPECT_TRUE(f.lines[0].excluded);
  EXPECT_TRUE(f.functions[0].excluded);
  for (size_t i = 1; i < f.lines.size(); ++i) {
    EXPECT_FALSE(f.lines[i].excluded);
    EXPECT_EQ(f.lines[i].branches.size(), 3u);
  }
}

TEST(ApplyExclusions, UnclosedRegionExcludesToTheEnd) {
  FileCov f = sample_file();
  apply_exclusions(f, find_exclusions(source(8, {{6, "// LCOV_EXCL_START"}}), "a.c"));
  std::vector<uint32_t> ex;
  for (const LineCov& l : f.lines)
    if (l.excluded) ex.push_back(l.number);
  EXPECT_EQ(ex, (V{6, 7, 8}));
  EXPECT_TRUE(f.functions[2].excluded);
}

}  // namespace
}  // namespace covkit::model
