// report/terminal_summary: the summary table's exact text, '-' for empty
// sets, percentages by the shared rule (percent_text.h), and colour only when asked.
#include "report/terminal_summary.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace covkit::report {
namespace terminal_summary_test {

using model::BranchCov;
using model::FileCov;
using model::FunctionCov;
using model::LineCov;
using model::ProjectCov;

LineCov line(uint32_t n, int64_t count, std::vector<int64_t> branches = {}) {
  LineCov l;
  l.number = n;
  l.count = count;
  for (int64_t b : branches) {
    BranchCov bc;
    bc.count = b;
    bc.executed = true;
    l.branches.push_back(bc);
  }
  return l;
}

FunctionCov fn(const std::string& name, uint32_t start, int64_t count) {
  FunctionCov f;
  f.name = name;
  f.start_line = start;
  f.execution_count = count;
  return f;
}

// src/a.c: lines 2/3, functions 1/2, branches 1/2; b.h: lines 1/1, nothing else.
ProjectCov small_project() {
  ProjectCov p;
  FileCov b;
  b.path = "b.h";
  b.lines = {line(1, 2)};
  FileCov a;
  a.path = "src/a.c";
  a.lines = {line(1, 1, {1, 0}), line(2, 0), line(3, 5)};
  a.functions = {fn("f", 1, 1), fn("g", 2, 0)};
  LineCov excluded = line(4, 0, {0, 0});
  excluded.excluded = true;  // not counted anywhere
  a.lines.push_back(excluded);
  p.files = {b, a};
  return p;
}

TEST(TerminalSummary, ExactTable) {
  const std::string expected =
      "                  Lines                  Functions                Branches        \n"
      "File       Total    Exec   Cover    Total    Exec   Cover    Total    Exec   Cover  Missing\n"
      "-------------------------------------------------------------------------------------------\n"
      "b.h            1       1  100.0%        0       0       -        0       0       -\n"
      "src/a.c        3       2   66.7%        2       1   50.0%        2       1   50.0%  2\n"
      "-------------------------------------------------------------------------------------------\n"
      "TOTAL          4       3   75.0%        2       1   50.0%        2       1   50.0%\n";
  EXPECT_EQ(render_terminal_summary(small_project(), {}), expected);
}

TEST(TerminalSummary, EmptyProjectHasOnlyHeadAndTotal) {
  const std::string expected =
      "                Lines                  Functions                Branches        \n"
      "File     Total    Exec   Cover    Total    Exec   Cover    Total    Exec   Cover  Missing\n"
      "-----------------------------------------------------------------------------------------\n"
      "-----------------------------------------------------------------------------------------\n"
      "TOTAL        0       0       -        0       0       -        0       0       -\n";
  EXPECT_EQ(render_terminal_summary(ProjectCov{}, {}), expected);
}

TEST(TerminalSummary, ColourOnlyWhenAsked) {
  // Lines 1/3 (33.3%), functions 3/4 (75.0%), branches 1/1 (100.0%): clearly
  // red, yellow and green; no colour for '-'.
  ProjectCov p;
  FileCov f;
  f.path = "c.c";
  f.lines = {line(1, 1, {1}), line(2, 0), line(3, 0)};
  f.functions = {fn("a", 1, 1), fn("b", 1, 1), fn("c", 1, 1), fn("d", 1, 0)};
  FileCov g;
  g.path = "d.c";
  g.lines = {line(1, 0)};
  p.files = {f, g};
  const std::string plain = render_terminal_summary(p, {false, 0});
  EXPECT_EQ(plain.find('\033'), std::string::npos);
  const std::string colour = render_terminal_summary(p, {true, 0});
  EXPECT_NE(colour.find("\nc.c          3       1 \033[31m  33.3%\033[0m        4       3 \033[33m  75.0%\033[0m        "
                        "1       1 \033[32m 100.0%\033[0m  2-3\n"),
            std::string::npos)
      << colour;
  EXPECT_NE(colour.find("\nd.c          1       0 \033[31m   0.0%\033[0m        0       0       -        0       0  "
                        "     -  1\n"),
            std::string::npos)
      << colour;
  // Removing the escapes gives the plain table back.
  std::string stripped = colour;
  for (const char* code : {"\033[32m", "\033[33m", "\033[31m", "\033[0m"})
    for (size_t at; (at = stripped.find(code)) != std::string::npos;) stripped.erase(at, std::string(code).size());
  EXPECT_EQ(stripped, plain);
}

TEST(TerminalSummary, LongPathsShortenedFromTheLeft) {
  ProjectCov p;
  FileCov f;
  f.path = "very/long/path/name.c";
  f.lines = {line(1, 1)};
  p.files = {f};
  const std::string table = render_terminal_summary(p, {false, 10});
  EXPECT_NE(table.find("\n.../name.c        1       1  100.0%"), std::string::npos) << table;
  EXPECT_NE(table.find("\nTOTAL             1       1  100.0%"), std::string::npos) << table;
  // No limit: the whole path.
  EXPECT_NE(render_terminal_summary(p, {}).find("\nvery/long/path/name.c        1"), std::string::npos);
}

// Files inside the root (relative paths) come before the others, whatever
// their names: "/usr/..." sorts before "src/..." but is not the project.
TEST(TerminalSummary, ProjectFilesFirst) {
  ProjectCov p;
  for (const char* path : {"/opt/dep/z.h", "/usr/include/stdio.h", "a.c", "src/b.c"}) {
    FileCov f;
    f.path = path;
    f.lines = {line(1, 1)};
    p.files.push_back(f);
  }
  const std::string table = render_terminal_summary(p, {});
  const size_t a = table.find("\na.c "), b = table.find("\nsrc/b.c "), z = table.find("\n/opt/dep/z.h "),
               s = table.find("\n/usr/include/stdio.h ");
  ASSERT_NE(z, std::string::npos) << table;
  ASSERT_NE(s, std::string::npos) << table;
  EXPECT_LT(a, b);
  EXPECT_LT(b, z);
  EXPECT_LT(z, s);
}

// The rule itself is tested in percent_text_test.cc; here: the table uses it.
TEST(TerminalSummary, PercentagesFollowTheSharedRule) {
  ProjectCov p;
  FileCov f;
  f.path = "r.c";
  for (uint32_t n = 1; n <= 3; ++n) f.lines.push_back(line(n, n < 3 ? 1 : 0));  // 2/3
  f.functions = {fn("f", 1, 1)};
  p.files = {f};
  const std::string table = render_terminal_summary(p, {});
  EXPECT_NE(table.find("\nr.c          3       2   66.7%        1       1  100.0%        0       0       -  3\n"),
            std::string::npos)
      << table;
}

// gcovr 5.2's "Missing": uncovered lines of code in order, consecutive
// numbers as one range; a line that is no code (absent from the model) or an
// excluded one breaks a range; covered lines never appear.
TEST(TerminalSummary, MissingListsUncoveredLinesAsGcovrRanges) {
  ProjectCov p;
  FileCov f;
  f.path = "m.c";
  f.lines = {line(3, 1), line(17, 0), line(18, 0), line(20, 0), line(22, 0, {1}), line(23, 0), line(24, 4),
             line(25, 0), line(26, 0), line(27, 0), line(29, 0)};
  LineCov excluded = line(28, 0);
  excluded.excluded = true;
  f.lines.insert(f.lines.end() - 1, excluded);
  p.files = {f};
  const std::string table = render_terminal_summary(p, {});
  EXPECT_NE(table.find("\nm.c         11       2   18.2%        0       0       -        1       1  100.0%  "
                       "17-18,20,22-23,25-27,29\n"),
            std::string::npos)
      << table;
  // Everything covered: no column text (and no trailing blanks).
  for (LineCov& l : f.lines) l.count = l.excluded ? 0 : 1;
  p.files = {f};
  const std::string covered = render_terminal_summary(p, {});
  EXPECT_NE(covered.find("100.0%        0       0       -        1       1  100.0%\n---"), std::string::npos) << covered;
}

}  // namespace
}  // namespace covkit::report
