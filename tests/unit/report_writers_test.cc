// The Cobertura, SonarQube, Coveralls and markdown writers on small projects
// whose numbers are known by construction.
#include <gtest/gtest.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "model/project_coverage.h"
#include "report/cobertura_writer.h"
#include "report/xml_escape.h"
#include "report/coveralls_writer.h"
#include "report/markdown_writer.h"
#include "report/sonarqube_writer.h"
#include "test_support.h"

namespace covkit::report {
namespace report_writers_test {

model::LineCov line(uint32_t n, int64_t count, std::vector<int64_t> branches = {}, bool excluded = false) {
  model::LineCov l;
  l.number = n;
  l.count = count;
  l.excluded = excluded;
  for (int64_t b : branches) l.branches.push_back({.count = b, .executed = count > 0});
  return l;
}

model::FunctionCov function(std::string name, std::string demangled, uint32_t start, uint32_t end, int64_t count,
                            bool excluded = false) {
  model::FunctionCov f;
  f.name = std::move(name);
  f.demangled = std::move(demangled);
  f.start_line = start;
  f.end_line = end;
  f.execution_count = count;
  f.excluded = excluded;
  return f;
}

// main.cc: 1 line (covered), main() ran.
// src/util/a.cc: lines 1,2,3,5,6 (4 covered; line 4 excluded), branches
// 1/2 on line 3 and 2/3 on line 6; f() ran, g() is excluded.
// Totals: lines 5/6, functions 2/2, branches 3/5.
model::ProjectCov sample(const std::string& a_source = "/abs/src/util/a.cc") {
  model::ProjectCov p;
  model::FileCov m;
  m.path = "main.cc";
  m.absolute_path = "/abs/main.cc";
  m.lines = {line(1, 1)};
  m.functions = {function("main", "main", 1, 1, 1)};
  model::FileCov a;
  a.path = "src/util/a.cc";
  a.absolute_path = a_source;
  a.lines = {line(1, 1), line(2, 0), line(3, 5, {1, 0}), line(4, 0, {0, 0}, true), line(5, 2), line(6, 3, {2, 3, 0})};
  a.lines[2].branches[0].fallthrough = true;
  a.functions = {function("_Z1fv", "f()", 1, 6, 1), function("_Z1gv", "g()", 4, 4, 0, true)};
  p.files = {m, a};
  return p;
}

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// ---- Cobertura ----

TEST(CoberturaWriter, RatesHaveAtMostFourDecimalsAndNeverRoundToTheEnds) {
  EXPECT_EQ(cobertura_rate(0, 0), "1.0");
  EXPECT_EQ(cobertura_rate(5, 6), "0.8333");
  EXPECT_EQ(cobertura_rate(2, 3), "0.6667");
  EXPECT_EQ(cobertura_rate(1, 2), "0.5");
  EXPECT_EQ(cobertura_rate(0, 7), "0.0");
  EXPECT_EQ(cobertura_rate(7, 7), "1.0");
  EXPECT_EQ(cobertura_rate(99999, 100000), "0.9999");
  EXPECT_EQ(cobertura_rate(1, 100000), "0.0001");
}

TEST(CoberturaWriter, HeaderAndTotalsMatchModelTotals) {
  const std::string xml = render_cobertura(sample(), {.source_root = "/abs", .source_prefix = {},
                                                      .timestamp = 1700000000,
                                                      .version = "covkit 0.1.0"});
  EXPECT_EQ(xml.rfind("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
                      "<!DOCTYPE coverage SYSTEM 'http://cobertura.sourceforge.net/xml/coverage-04.dtd'>\n",
                      0),
            0u);
  EXPECT_TRUE(contains(xml,
                       "<coverage line-rate=\"0.8333\" branch-rate=\"0.6\" lines-covered=\"5\" lines-valid=\"6\" "
                       "branches-covered=\"3\" branches-valid=\"5\" complexity=\"0\" timestamp=\"1700000000\" "
                       "version=\"covkit 0.1.0\">"))
      << xml;
  EXPECT_TRUE(contains(xml, "<sources>\n    <source>/abs</source>\n  </sources>"));
  const model::Totals t = model::totals(sample());
  EXPECT_EQ(t.lines, 6);
  EXPECT_EQ(t.branches_covered, 3);
}

TEST(CoberturaWriter, PackagesAreDirectoriesAndClassesAreFiles) {
  const std::string xml = render_cobertura(sample(), {});
  const size_t root = xml.find("<package name=\"\" line-rate=\"1.0\" branch-rate=\"1.0\" complexity=\"0\">");
  const size_t util = xml.find("<package name=\"src.util\" line-rate=\"0.8\" branch-rate=\"0.6\" complexity=\"0\">");
  ASSERT_NE(root, std::string::npos) << xml;
  ASSERT_NE(util, std::string::npos) << xml;
  EXPECT_LT(root, util);
  EXPECT_TRUE(contains(xml, "<class name=\"main_cc\" filename=\"main.cc\" line-rate=\"1.0\""));
  EXPECT_TRUE(contains(xml, "<class name=\"a_cc\" filename=\"src/util/a.cc\" line-rate=\"0.8\" branch-rate=\"0.6\""));
  // No source root: an empty <sources>.
  EXPECT_TRUE(contains(xml, "<sources>\n  </sources>"));
}

TEST(CoberturaWriter, LinesBranchesAndMethods) {
  const std::string xml = render_cobertura(sample(), {});
  EXPECT_TRUE(contains(xml, "<line number=\"2\" hits=\"0\" branch=\"false\"/>"));
  EXPECT_TRUE(contains(xml,
                       "<line number=\"3\" hits=\"5\" branch=\"true\" condition-coverage=\"50% (1/2)\">\n"
                       "              <conditions>\n"
                       "                <condition number=\"0\" type=\"jump\" coverage=\"50%\"/>\n"
                       "              </conditions>\n"
                       "            </line>"))
      << xml;
  // Truncated, as gcovr does: 2/3 is 66%.
  EXPECT_TRUE(contains(xml, "condition-coverage=\"66% (2/3)\""));
  // The excluded line and function are not there.
  EXPECT_FALSE(contains(xml, "number=\"4\""));
  EXPECT_FALSE(contains(xml, "g()"));
  // f() spans lines 1..6: its rates are the file's; it lists its first line.
  EXPECT_TRUE(contains(xml,
                       "<method name=\"f()\" signature=\"\" line-rate=\"0.8\" branch-rate=\"0.6\" complexity=\"0\">\n"
                       "              <lines>\n"
                       "                <line number=\"1\" hits=\"1\" branch=\"false\"/>\n"
                       "              </lines>\n"
                       "            </method>"))
      << xml;
}

// gcovr 5.2 rounds a line's branch ratio to one decimal before it truncates
// (int(round(100 * covered / total, 1)), at most 99.9 unless all were
// taken): seen on simdjson's json_iterator-inl.h:126 at -O2, 25 of 228
// branches, 11% in gcovr's report. The expected values are Python's.
TEST(CoberturaWriter, ConditionCoverageRoundsToATenthThenTruncatesAsGcovrDoes) {
  const std::vector<std::pair<int64_t, int64_t>> cases = {{1, 51}, {25, 228}, {199, 2000}, {1999, 2000}, {2, 3}, {0, 9}};
  const std::vector<std::string> want = {"2% (1/51)", "11% (25/228)", "10% (199/2000)", "99% (1999/2000)", "66% (2/3)",
                                         "0% (0/9)"};
  model::ProjectCov p;
  model::FileCov f;
  f.path = "x.cc";
  for (size_t i = 0; i < cases.size(); i++) {
    std::vector<int64_t> branches(static_cast<size_t>(cases[i].second), 0);
    std::fill_n(branches.begin(), cases[i].first, 1);
    f.lines.push_back(line(static_cast<uint32_t>(i + 1), 1, branches));
  }
  p.files = {f};
  const std::string xml = render_cobertura(p, {});
  for (const std::string& w : want) {
    EXPECT_TRUE(contains(xml, "condition-coverage=\"" + w + "\"")) << w;
    const std::string pct = w.substr(0, w.find(' '));
    EXPECT_TRUE(contains(xml, "type=\"jump\" coverage=\"" + pct + "\"")) << w;
  }
}

// Streamed, a large project's text comes in several pieces, each ending at
// a class's (a file's) end; render_cobertura is their concatenation.
TEST(CoberturaWriter, StreamedInPiecesThatEndWithAClass) {
  model::ProjectCov p;
  for (int i = 0; i < 300; ++i) {
    model::FileCov f;
    f.path = "src/d" + std::to_string(i % 7) + "/f" + std::to_string(i) + ".c";
    f.functions = {function("f" + std::to_string(i), "", 1, 80, i % 2)};
    for (uint32_t n = 1; n <= 80; ++n) f.lines.push_back(line(n, n % 3, n % 5 ? std::vector<int64_t>{} : std::vector<int64_t>{1, 0}));
    p.files.push_back(std::move(f));
  }
  std::sort(p.files.begin(), p.files.end(), [](const auto& a, const auto& b) { return a.path < b.path; });
  const CoberturaOptions o{.source_root = "/r", .source_prefix = {}, .timestamp = 5, .version = "v"};
  std::vector<std::string> pieces;
  stream_cobertura(p, o, [&](std::string_view piece) { pieces.emplace_back(piece); });
  ASSERT_GT(pieces.size(), 2u);
  std::string whole;
  for (size_t i = 0; i < pieces.size(); ++i) {
    if (i + 1 < pieces.size()) {
      EXPECT_TRUE(pieces[i].ends_with("</class>\n")) << i;
    }
    whole += pieces[i];
  }
  EXPECT_TRUE(whole.ends_with("</coverage>\n"));
  // (render_cobertura is these pieces joined: the text itself is checked by
  // the golden and oracle tests, not by comparing it with itself here.)
  size_t classes = 0;
  for (size_t at = whole.find("<class "); at != std::string::npos; at = whole.find("<class ", at + 1)) ++classes;
  EXPECT_EQ(classes, p.files.size());
}

TEST(CoberturaWriter, EscapesNamesAndReplacesWhatXmlCannotHold) {
  EXPECT_EQ(xml_escape("a<b>&'\"c"), "a&lt;b&gt;&amp;&apos;&quot;c");
  EXPECT_EQ(xml_escape("t\tn\nr\r"), "t&#9;n&#10;r&#13;");
  EXPECT_EQ(xml_escape("x\x01y"), "x\xEF\xBF\xBDy");
  EXPECT_EQ(xml_escape("caf\xC3\xA9"), "caf\xC3\xA9");           // valid UTF-8 passes
  EXPECT_EQ(xml_escape("\xFF"), "\xEF\xBF\xBD");                  // not UTF-8
  EXPECT_EQ(xml_escape("\xC0\xAF"), "\xEF\xBF\xBD\xEF\xBF\xBD");  // overlong '/'
  EXPECT_EQ(xml_escape("\xEF\xBF\xBF"), "\xEF\xBF\xBD");          // U+FFFF
  EXPECT_EQ(xml_escape("\xE2\x82"), "\xEF\xBF\xBD\xEF\xBF\xBD");  // truncated sequence

  model::ProjectCov p = sample();
  p.files[1].functions[0].demangled = "std::vector<int>::operator<(a&, b\"c')";
  CoberturaOptions o;
  o.version = "v<1>";
  const std::string xml = render_cobertura(p, o);
  EXPECT_TRUE(contains(xml, "name=\"std::vector&lt;int&gt;::operator&lt;(a&amp;, b&quot;c&apos;)\"")) << xml;
  EXPECT_TRUE(contains(xml, "version=\"v&lt;1&gt;\""));
}

TEST(CoberturaWriter, EmptyProject) {
  const std::string xml =
      render_cobertura({}, {.source_root = "/r", .source_prefix = {}, .timestamp = 5, .version = "v"});
  EXPECT_TRUE(contains(xml,
                       "<coverage line-rate=\"1.0\" branch-rate=\"1.0\" lines-covered=\"0\" lines-valid=\"0\" "
                       "branches-covered=\"0\" branches-valid=\"0\" complexity=\"0\" timestamp=\"5\" version=\"v\">"));
  EXPECT_TRUE(contains(xml, "<packages>\n  </packages>\n</coverage>\n"));
}

// ---- SonarQube ----

TEST(SonarqubeWriter, WholeDocument) {
  EXPECT_EQ(render_sonarqube(sample()),
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
            "<coverage version=\"1\">\n"
            "  <file path=\"main.cc\">\n"
            "    <lineToCover lineNumber=\"1\" covered=\"true\"/>\n"
            "  </file>\n"
            "  <file path=\"src/util/a.cc\">\n"
            "    <lineToCover lineNumber=\"1\" covered=\"true\"/>\n"
            "    <lineToCover lineNumber=\"2\" covered=\"false\"/>\n"
            "    <lineToCover lineNumber=\"3\" covered=\"true\" branchesToCover=\"2\" coveredBranches=\"1\"/>\n"
            "    <lineToCover lineNumber=\"5\" covered=\"true\"/>\n"
            "    <lineToCover lineNumber=\"6\" covered=\"true\" branchesToCover=\"3\" coveredBranches=\"2\"/>\n"
            "  </file>\n"
            "</coverage>\n");
}

TEST(SonarqubeWriter, EscapesPathsSkipsLineZeroAndEmptyProject) {
  model::ProjectCov p;
  model::FileCov f;
  f.path = "a&b<c>.cc";
  f.lines = {line(0, 1), line(2, 0)};
  p.files = {f};
  const std::string xml = render_sonarqube(p);
  EXPECT_TRUE(contains(xml, "<file path=\"a&amp;b&lt;c&gt;.cc\">\n"
                            "    <lineToCover lineNumber=\"2\" covered=\"false\"/>\n"
                            "  </file>"))
      << xml;
  EXPECT_FALSE(contains(xml, "lineNumber=\"0\""));
  EXPECT_EQ(render_sonarqube({}), "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<coverage version=\"1\">\n</coverage>\n");
}

// ---- Coveralls ----

constexpr const char* kSourceA =
    "int f() {\n  int x = 0;\n  if (x) x++;\n  // excluded\n  x += 2;\n  return x ? 1 : 0;\n}\n";

TEST(CoverallsWriter, SourceFilesCoverageAndBranches) {
  testing::TempDir dir;
  ASSERT_TRUE(testing::write_text(dir / "a.cc", kSourceA));
  CoverallsOptions o;
  o.service_job_id = "42";
  const std::string text = render_coveralls(sample(dir / "a.cc"), o);
  const nlohmann::json j = nlohmann::json::parse(text);
  EXPECT_EQ(j["service_name"], "covkit");
  EXPECT_EQ(j["service_job_id"], "42");
  EXPECT_FALSE(j.contains("repo_token"));
  ASSERT_EQ(j["source_files"].size(), 2u);

  const nlohmann::json& m = j["source_files"][0];
  EXPECT_EQ(m["name"], "main.cc");
  EXPECT_EQ(m["source_digest"], "");  // /abs/main.cc does not exist
  EXPECT_EQ(m["coverage"], nlohmann::json::parse("[1]"));
  EXPECT_EQ(m["branches"], nlohmann::json::array());

  const nlohmann::json& a = j["source_files"][1];
  EXPECT_EQ(a["name"], "src/util/a.cc");
  EXPECT_EQ(a["source_digest"], "1e6907e2e6f5d5ad89aa9971140c41a6");
  // 7 source lines: the excluded line 4 and the uncounted line 7 are null.
  EXPECT_EQ(a["coverage"], nlohmann::json::parse("[1, 0, 5, null, 2, 3, null]"));
  EXPECT_EQ(a["branches"], nlohmann::json::parse("[3,0,0,1, 3,0,1,0, 6,0,0,2, 6,0,1,3, 6,0,2,0]"));
}

TEST(CoverallsWriter, OptionsAndEmptyProject) {
  const nlohmann::json j = nlohmann::json::parse(
      render_coveralls({}, {.service_name = "github-actions", .service_job_id = "", .repo_token = "tok"}));
  EXPECT_EQ(j, nlohmann::json::parse(
                   R"({"service_name": "github-actions", "repo_token": "tok", "source_files": []})"));
}

TEST(CoverallsWriter, NonUtf8NamesStillGiveValidJson) {
  model::ProjectCov p;
  model::FileCov f;
  f.path = "bad\xFFname\n.c";
  f.lines = {line(1, 1)};
  p.files = {f};
  const std::string text = render_coveralls(p);
  const nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
  ASSERT_FALSE(j.is_discarded()) << text;
  EXPECT_EQ(j["source_files"][0]["name"], "bad\xEF\xBF\xBDname\n.c");
}

// ---- Markdown ----

// The shared rule (percent_text_test.cc): 2/3 rounds to 66.7%, 0/0 is "-".
TEST(MarkdownWriter, PercentagesFollowTheSharedRule) {
  model::ProjectCov p;
  model::FileCov f;
  f.path = "r.c";
  f.lines = {line(1, 1), line(2, 1), line(3, 0)};
  p.files = {f};
  const std::string md = render_markdown(p);
  EXPECT_TRUE(contains(md, "| Lines | 2 | 3 | 66.7% |")) << md;
  EXPECT_TRUE(contains(md, "| Functions | 0 | 0 | - |")) << md;
  EXPECT_TRUE(contains(md, "| `r.c` | 66.7% (2/3) | - (0/0) | - (0/0) | 3 |")) << md;
}

TEST(MarkdownWriter, SummaryAndPerFileTables) {
  EXPECT_EQ(render_markdown(sample()),
            "## Coverage report\n"
            "\n"
            "| | Covered | Total | Percent |\n"
            "|:--|--:|--:|--:|\n"
            "| Lines | 5 | 6 | 83.3% |\n"
            "| Functions | 2 | 2 | 100.0% |\n"
            "| Branches | 3 | 5 | 60.0% |\n"
            "\n"
            "| File | Lines | Functions | Branches | Missing lines |\n"
            "|:--|--:|--:|--:|:--|\n"
            "| `main.cc` | 100.0% (1/1) | 100.0% (1/1) | - (0/0) |  |\n"
            "| `src/util/a.cc` | 80.0% (4/5) | 100.0% (1/1) | 60.0% (3/5) | 2 |\n");
}

TEST(MarkdownWriter, MaxFilesKeepsTheLowestCoveredInPathOrder) {
  model::ProjectCov p;
  for (auto [path, covered] : {std::pair{"a.c", 3}, {"b.c", 1}, {"c.c", 2}, {"d.c", 0}}) {
    model::FileCov f;
    f.path = path;
    for (int i = 0; i < 4; ++i) f.lines.push_back(line(uint32_t(i + 1), i < covered ? 1 : 0));
    p.files.push_back(f);
  }
  const std::string md = render_markdown(p, {.title = "PR coverage", .max_files = 2});
  EXPECT_EQ(md.rfind("## PR coverage\n", 0), 0u);
  const size_t b = md.find("| `b.c` | 25.0% (1/4) |");
  const size_t d = md.find("| `d.c` | 0.0% (0/4) |");
  ASSERT_NE(b, std::string::npos) << md;
  ASSERT_NE(d, std::string::npos) << md;
  EXPECT_LT(b, d);
  EXPECT_FALSE(contains(md, "| `a.c`"));
  EXPECT_FALSE(contains(md, "| `c.c`"));
  EXPECT_TRUE(contains(md, "Showing the 2 files with the lowest line coverage of 4."));
  EXPECT_FALSE(contains(render_markdown(p), "Showing"));
}

// "-" (nothing to cover) sorts below every value, here too.
TEST(MarkdownWriter, NothingToCoverCountsAsLowest) {
  model::ProjectCov p;
  model::FileCov a, e;
  a.path = "a.c";
  a.lines = {line(1, 0), line(2, 1)};
  e.path = "e.h";
  e.lines = {line(1, 1, {}, true)};  // excluded: no line left to cover
  p.files = {a, e};
  const std::string md = render_markdown(p, {.max_files = 1});
  EXPECT_TRUE(contains(md, "| `e.h` | - (0/0) |")) << md;
  EXPECT_FALSE(contains(md, "| `a.c` |")) << md;
}

TEST(MarkdownWriter, EscapesPathsAndSkipsExcluded) {
  model::ProjectCov p;
  model::FileCov f;
  f.path = "dir|x/my_file*.c";
  f.lines = {line(1, 1), line(2, 0, {}, true)};
  f.functions = {function("h", "h", 2, 2, 0, true)};
  p.files = {f};
  const std::string md = render_markdown(p);
  EXPECT_TRUE(contains(md, "| `dir\\|x/my_file*.c` | 100.0% (1/1) | - (0/0) | - (0/0) |  |")) << md;
}

// A file name is a code span: no mention, reference, autolink or emphasis
// comes out of it, backticks in it get a longer fence, and one at either end
// a space inside the fence (which the span drops again).
TEST(MarkdownWriter, PathsAreCodeSpansWhateverTheyHold) {
  auto cell_of = [](std::string path) {
    model::ProjectCov p;
    model::FileCov f;
    f.path = std::move(path);
    f.lines = {line(1, 1)};
    p.files = {f};
    const std::string md = render_markdown(p);
    const size_t row = md.rfind("\n| ");
    return md.substr(row + 3, md.find(" | 100.0%", row) - row - 3);
  };
  EXPECT_EQ(cell_of("@org/team.c"), "`@org/team.c`");
  EXPECT_EQ(cell_of("#12 www.example.org <b>.c"), "`#12 www.example.org <b>.c`");
  EXPECT_EQ(cell_of("a`b``c.c"), "```a`b``c.c```");
  EXPECT_EQ(cell_of("`x.c"), "`` `x.c ``");
  EXPECT_EQ(cell_of("x.c "), "` x.c  `");
  EXPECT_EQ(cell_of("a|b.c"), "`a\\|b.c`");
  EXPECT_EQ(cell_of("a\nb.c"), "`a\xEF\xBF\xBD" "b.c`");
}

TEST(MarkdownWriter, EmptyProject) {
  const std::string md = render_markdown({});
  EXPECT_TRUE(contains(md, "| Lines | 0 | 0 | - |"));
  EXPECT_TRUE(contains(md, "| Branches | 0 | 0 | - |"));
  EXPECT_TRUE(contains(md, "No source files."));
  EXPECT_FALSE(contains(md, "| File |"));
}

}  // namespace
}  // namespace covkit::report
