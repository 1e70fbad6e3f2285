// report/html: the site written for a hand-built ProjectCov — pages exist,
// line rows carry the ids and classes the browser test and users rely on,
// and every name and source byte arrives escaped.
#include "report/html/html_site.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <chrono>
#include <string>

#include "report/html/html_names.h"
#include "test_support.h"

namespace covkit::report::html {
namespace {

using covkit::testing::TempDir;

std::string slurp(const std::string& path) {
  std::vector<uint8_t> b = covkit::testing::read_bytes(path);
  return std::string(b.begin(), b.end());
}

bool exists(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0;
}

// The <tr ...>...</tr> of line `n`, or "" when the page has none.
std::string row(const std::string& page, uint32_t n) {
  std::string key = "<tr id=\"L" + std::to_string(n) + "\"";
  size_t at = page.find(key);
  if (at == std::string::npos) return "";
  size_t end = page.find("</tr>", at);
  return page.substr(at, end - at + 5);
}

size_t occurrences(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

model::LineCov line(uint32_t number, int64_t count) {
  model::LineCov l;
  l.number = number;
  l.count = count;
  return l;
}

model::BranchCov branch(int64_t count, bool is_throw = false) {
  model::BranchCov b;
  b.count = count;
  b.executed = true;
  b.is_throw = is_throw;
  return b;
}

model::FunctionCov function(const std::string& name, const std::string& demangled, uint32_t line, int64_t count,
                            uint32_t blocks, uint32_t executed) {
  model::FunctionCov f;
  f.name = name;
  f.demangled = demangled;
  f.start_line = line;
  f.execution_count = count;
  f.blocks = blocks;
  f.blocks_executed = executed;
  return f;
}

constexpr const char* kCoreSource =
    "#include <stdio.h>\n"                     // 1 no code
    "int f(int x) {\n"                         // 2 covered, 2 instances
    "  if (x > 0 && x < 10)\n"                 // 3 partial: 1 of 3 branches
    "    return 1;\n"                          // 4 covered
    "  return 0;\n"                            // 5 uncovered
    "}\n"                                      // 6 covered
    "int skipped(void) { return 7; }\n"        // 7 excluded
    "\tint t = 1 < 2 && 3 > 1; /* tab */\r\n"  // 8 covered, CRLF
    "int g(void) { return 2; }\n";             // 9 uncovered

// src/core/a.c (source on disk), lib/missing.c (no source), and a file whose
// name and text are full of markup.
model::ProjectCov sample_project(const TempDir& dir) {
  model::ProjectCov p;

  model::FileCov a;
  a.path = "src/core/a.c";
  a.absolute_path = dir / "a.c";
  EXPECT_TRUE(covkit::testing::write_text(a.absolute_path, kCoreSource));
  a.lines = {line(2, 3), line(3, 3), line(4, 1), line(5, 0), line(6, 3), line(7, 0), line(8, 3), line(9, 0)};
  a.lines[0].instances = {{"_Z1fIiEvT_", 2}, {"_Z1fIlEvT_", 1}};
  a.lines[1].branches = {branch(3), branch(0), branch(0, /*is_throw=*/true)};
  a.lines[2].unexecuted_block = true;
  a.lines[5].excluded = true;
  a.functions = {function("f", "f", 2, 3, 5, 4), function("_Z7skippedv", "", 7, 0, 2, 0),
                 function("_Z1gv", "", 9, 0, 2, 0)};
  a.functions[1].excluded = true;

  model::FileCov missing;
  missing.path = "lib/missing.c";
  missing.absolute_path = dir / "no/such/missing.c";
  missing.lines = {line(10, 4), line(20, 0)};
  missing.functions = {function("h", "h", 10, 4, 1, 1)};

  model::FileCov weird;
  weird.path = "lib/we<ird>&\"name'.c";
  weird.absolute_path = dir / "weird.c";
  EXPECT_TRUE(covkit::testing::write_text(weird.absolute_path, "char* s = \"<script>alert(1)</script>\";\n"));
  weird.lines = {line(1, 1)};
  weird.functions = {function("_Z3cmpIiEbRKT_S2_", "bool cmp<int>(int const&, int const&)", 1, 1, 1, 1)};

  p.files = {std::move(missing), std::move(weird), std::move(a)};  // sorted by path
  return p;
}

TEST(HtmlSite, WritesIndexAssetsAndOnePagePerFile) {
  TempDir tmp;
  model::ProjectCov p = sample_project(tmp);
  HtmlOptions opts;
  opts.title = "Cov <of> T&T";
  opts.timestamp = 1700000000;
  opts.version = "covkit 9.9.9";
  std::string out = tmp / "site/nested";  // parents are created
  std::string error;
  ASSERT_TRUE(write_html_site(p, opts, out, &error)) << error;
  EXPECT_TRUE(error.empty());
  for (const char* f : {"index.html", "style.css", "sort.js"}) EXPECT_TRUE(exists(out + "/" + f)) << f;
  for (const model::FileCov& f : p.files) EXPECT_TRUE(exists(out + "/" + page_file_name(f.path))) << f.path;

  std::string css = slurp(out + "/style.css");
  EXPECT_NE(css.find("@media (prefers-color-scheme: dark)"), std::string::npos);
  EXPECT_NE(css.find("tab-size: 8"), std::string::npos);
  EXPECT_EQ(css.find("http"), std::string::npos);  // nothing fetched
  std::string js = slurp(out + "/sort.js");
  EXPECT_NE(js.find("sort=([a-z]+)-(asc|desc)"), std::string::npos);

  std::string index = slurp(out + "/index.html");
  EXPECT_EQ(index.find("http"), std::string::npos);
  EXPECT_NE(index.find("<title>Cov &lt;of&gt; T&amp;T</title>"), std::string::npos);
  EXPECT_NE(index.find("Generated 2023-11-14 22:13:20 UTC"), std::string::npos);
  EXPECT_NE(index.find("covkit 9.9.9"), std::string::npos);
  EXPECT_NE(index.find("<table class=\"files sortable\" id=\"files\">"), std::string::npos);
  for (const char* key : {"name", "line", "func", "branch"})
    EXPECT_NE(index.find(std::string("data-sort=\"") + key + "\""), std::string::npos) << key;
  // Totals (excluded lines and functions left out): lines 2,3,4,6,8 of
  // 2..9 without 7, plus 10 of {10,20}, plus 1 of {1}.
  EXPECT_NE(index.find("<div class=\"card lines lo\"><h3>Lines</h3><div class=\"pct\">70.0%</div>"), std::string::npos);
  EXPECT_NE(index.find("7 of 10 covered"), std::string::npos);
  EXPECT_NE(index.find("3 of 4 covered"), std::string::npos);  // functions f, h, cmp of f, g, h, cmp
  EXPECT_NE(index.find("1 of 3 covered"), std::string::npos);  // branches
  // Two directory groups, each a tbody with its summary row first.
  EXPECT_EQ(occurrences(index, "<tbody class=\"dir\">"), 2u);
  size_t lib = index.find("title=\"show or hide the files\">\u25be</button>lib ");
  size_t core = index.find("title=\"show or hide the files\">\u25be</button>src/<wbr>core ");
  ASSERT_NE(lib, std::string::npos);
  ASSERT_NE(core, std::string::npos);
  EXPECT_LT(lib, core);
  size_t lib_row = index.find("<tr class=\"group\" data-name=\"lib\" data-line=\"66.666667\"");
  ASSERT_NE(lib_row, std::string::npos);
  // lib has no branches: a dash, not a green 100% (though it sorts as 100).
  std::string lib_tr = index.substr(lib_row, index.find("</tr>", lib_row) - lib_row);
  EXPECT_NE(lib_tr.find("data-branch=\"100.000000\""), std::string::npos);
  EXPECT_NE(lib_tr.find("<td class=\"metric na\" title=\"nothing to cover\"><span class=\"bar\" aria-hidden=\"true\">"
                        "</span><span class=\"pct\">\u2014</span><span class=\"frac\">0/0</span></td>"),
            std::string::npos)
      << lib_tr;
  EXPECT_NE(lib_tr.find("<td class=\"metric lo\"><span class=\"bar\" aria-hidden=\"true\"><span style=\"width:66.7%\">"
                        "</span></span><span class=\"pct\">66.6%</span><span class=\"frac\">2/3</span></td>"),
            std::string::npos)
      << lib_tr;
  // Every file row links to its page; names escaped in text and attributes.
  for (const model::FileCov& f : p.files)
    EXPECT_NE(index.find("<a href=\"" + page_file_name(f.path) + "\""), std::string::npos) << f.path;
  EXPECT_NE(index.find(">we&lt;ird&gt;&amp;&quot;name&#39;.c</a>"), std::string::npos);
  EXPECT_NE(index.find("data-name=\"we&lt;ird&gt;&amp;&quot;name&#39;.c\""), std::string::npos);
  EXPECT_EQ(index.find("we<ird>"), std::string::npos);
  EXPECT_NE(index.find("<tr class=\"file\" data-name=\"a.c\" data-line=\"71.428571\" data-func=\"50.000000\" "
                       "data-branch=\"33.333333\">"),
            std::string::npos);
}

TEST(HtmlSite, SourcePageMarksEveryKindOfLine) {
  TempDir tmp;
  model::ProjectCov p = sample_project(tmp);
  HtmlOptions opts;
  opts.show_instances = true;
  std::string error;
  ASSERT_TRUE(write_html_site(p, opts, tmp / "site", &error)) << error;
  std::string page = slurp(tmp / "site" + "/" + page_file_name("src/core/a.c"));

  EXPECT_EQ(row(page, 1),
            "<tr id=\"L1\" class=\"nocode\"><td class=\"num\"><a href=\"#L1\">1</a></td><td class=\"count\"></td>"
            "<td class=\"br\"></td><td class=\"code\">#include &lt;stdio.h&gt;</td></tr>");
  EXPECT_NE(row(page, 2).find("class=\"covered\""), std::string::npos);
  EXPECT_NE(row(page, 2).find("<td class=\"count\">3</td>"), std::string::npos);
  std::string partial = row(page, 3);
  EXPECT_NE(partial.find("<tr id=\"L3\" class=\"partial\">"), std::string::npos);
  EXPECT_NE(partial.find("<summary title=\"1 of 3 branches taken\">1/3</summary>"), std::string::npos);
  EXPECT_NE(partial.find("1/3 branches taken"), std::string::npos);
  EXPECT_NE(partial.find("<li class=\"taken\">branch 0: taken 3\u00d7</li>"), std::string::npos);
  EXPECT_NE(partial.find("<li class=\"nottaken\">branch 1: never taken</li>"), std::string::npos);
  EXPECT_NE(partial.find("<li class=\"nottaken\">branch 2: never taken (throw)</li>"), std::string::npos);
  EXPECT_NE(partial.find("x &gt; 0 &amp;&amp; x &lt; 10"), std::string::npos);
  EXPECT_NE(row(page, 4).find("<td class=\"count\">1<span class=\"star\""), std::string::npos);
  EXPECT_NE(row(page, 5).find("<tr id=\"L5\" class=\"uncovered\"><td class=\"num\"><a href=\"#L5\">5</a></td>"
                              "<td class=\"count\">0</td>"),
            std::string::npos);
  std::string excluded = row(page, 7);
  EXPECT_NE(excluded.find("class=\"excluded\""), std::string::npos);
  EXPECT_NE(excluded.find("<td class=\"count\"><span title=\"excluded\">\u2014</span></td>"), std::string::npos);
  // Tabs are kept (CSS tab-size lays them out) and the DOS '\r' dropped.
  EXPECT_NE(row(page, 8).find("<td class=\"code\">\tint t = 1 &lt; 2 &amp;&amp; 3 &gt; 1; /* tab */</td>"),
            std::string::npos);
  EXPECT_NE(row(page, 9).find("class=\"uncovered\""), std::string::npos);
  EXPECT_EQ(row(page, 10), "");
  EXPECT_EQ(occurrences(page, "<tr id=\"L"), 9u);

  // Instances: one row each under line 2, names demangled.
  EXPECT_EQ(occurrences(page, "<tr class=\"instance\" data-line=\"2\">"), 2u);
  EXPECT_NE(page.find("<span class=\"icount\">2</span>void f&lt;int&gt;(int)"), std::string::npos);
  EXPECT_NE(page.find("<span class=\"icount\">1</span>void f&lt;long&gt;(long)"), std::string::npos);
  EXPECT_LT(page.find("class=\"instance\""), page.find("id=\"L3\""));

  // Function table: names demangled (from the mangled name when the model
  // has none), linked to their lines, counts and blocks.
  EXPECT_NE(page.find("<table class=\"functions sortable\" id=\"functions\">"), std::string::npos);
  EXPECT_NE(
      page.find("<tr class=\"covered\" data-name=\"f\" data-line=\"2\" data-calls=\"3\" data-blocks=\"80.000000\">"
                "<td class=\"fn\"><a href=\"#L2\" title=\"f\">f</a></td><td class=\"num-cell\">2</td>"
                "<td class=\"num-cell calls\">3</td>"),
      std::string::npos);
  EXPECT_NE(page.find("<span class=\"frac\">4/5</span>"), std::string::npos);
  EXPECT_NE(page.find("<tr class=\"uncovered\" data-name=\"g()\""), std::string::npos);
  EXPECT_NE(page.find("<a href=\"#L9\" title=\"_Z1gv\">g()</a>"), std::string::npos);
  EXPECT_NE(page.find("<tr class=\"excluded\" data-name=\"skipped()\""), std::string::npos);
  EXPECT_EQ(page.find("source not found"), std::string::npos);
}

TEST(HtmlSite, InstancesHiddenByDefault) {
  TempDir tmp;
  model::ProjectCov p = sample_project(tmp);
  std::string error;
  ASSERT_TRUE(write_html_site(p, HtmlOptions{}, tmp / "site", &error)) << error;
  std::string page = slurp(tmp / "site" + "/" + page_file_name("src/core/a.c"));
  EXPECT_EQ(page.find("class=\"instance\""), std::string::npos);
  EXPECT_NE(row(page, 2).find("class=\"covered\""), std::string::npos);
  // No timestamp, no version: the header carries neither, so output is reproducible.
  EXPECT_EQ(page.find("Generated"), std::string::npos);
  EXPECT_NE(page.find("<title>a.c \u2014 covkit coverage</title>"), std::string::npos);
}

TEST(HtmlSite, MissingSourceShowsCountedLinesUnderANotice) {
  TempDir tmp;
  model::ProjectCov p = sample_project(tmp);
  std::string error;
  ASSERT_TRUE(write_html_site(p, HtmlOptions{}, tmp / "site", &error)) << error;
  std::string page = slurp(tmp / "site" + "/" + page_file_name("lib/missing.c"));
  size_t notice = page.find("<p class=\"notice\" id=\"source-missing\">Notice: source not found (<code>");
  ASSERT_NE(notice, std::string::npos);
  EXPECT_NE(page.find("no/such/missing.c</code>: No such file or directory)", notice), std::string::npos);
  EXPECT_EQ(occurrences(page, "<tr id=\"L"), 2u);
  EXPECT_NE(row(page, 10).find("class=\"covered\""), std::string::npos);
  EXPECT_NE(row(page, 10).find("<td class=\"count\">4</td>"), std::string::npos);
  EXPECT_NE(row(page, 20).find("class=\"uncovered\""), std::string::npos);
  EXPECT_EQ(row(page, 1), "");
}

TEST(HtmlSite, MarkupInNamesAndSourceIsEscaped) {
  TempDir tmp;
  model::ProjectCov p = sample_project(tmp);
  std::string error;
  ASSERT_TRUE(write_html_site(p, HtmlOptions{}, tmp / "site", &error)) << error;
  std::string page = slurp(tmp / "site" + "/" + page_file_name("lib/we<ird>&\"name'.c"));
  EXPECT_NE(page.find("char* s = &quot;&lt;script&gt;alert(1)&lt;/script&gt;&quot;;"), std::string::npos);
  EXPECT_EQ(page.find("<script>alert"), std::string::npos);
  EXPECT_NE(page.find("<h2 class=\"path\""), std::string::npos);
  EXPECT_NE(page.find(">lib/we&lt;ird&gt;&amp;&quot;name&#39;.c</h2>"), std::string::npos);
  EXPECT_NE(page.find("bool cmp&lt;int&gt;(int const&amp;, int const&amp;)"), std::string::npos);
  EXPECT_EQ(page.find("we<ird>"), std::string::npos);
  EXPECT_EQ(page.find("cmp<int>"), std::string::npos);
}

TEST(HtmlSite, LinesBeyondTheSourceGetRowsWithoutMaterialisingTheGap) {
  TempDir tmp;
  model::ProjectCov p;
  model::FileCov f;
  f.path = "stale.c";
  f.absolute_path = tmp / "stale.c";
  ASSERT_TRUE(covkit::testing::write_text(f.absolute_path, "int a;\nint b;\n"));
  f.lines = {line(2, 1), line(100, 0), line(4000000000u, 5)};
  p.files.push_back(f);
  std::string error;
  ASSERT_TRUE(write_html_site(p, HtmlOptions{}, tmp / "site", &error)) << error;
  std::string page = slurp(tmp / "site" + "/" + page_file_name("stale.c"));
  EXPECT_NE(page.find("id=\"source-stale\">Notice: the coverage data names line 4000000000 but the source has 2 lines"),
            std::string::npos);
  EXPECT_EQ(occurrences(page, "<tr id=\"L"), 4u);
  EXPECT_NE(row(page, 100).find("class=\"uncovered\""), std::string::npos);
  EXPECT_NE(row(page, 100).find("(no such line in the source)"), std::string::npos);
  EXPECT_NE(row(page, 4000000000u).find("<td class=\"count\">5</td>"), std::string::npos);
}

TEST(HtmlSite, LargeFileRendersInLinearTime) {
  TempDir tmp;
  constexpr uint32_t kLines = 200000;
  std::string text;
  model::FileCov f;
  f.path = "big/generated.c";
  f.absolute_path = tmp / "big.c";
  for (uint32_t i = 1; i <= kLines; ++i) {
    text += "  x += a[i] < b[i] && c > " + std::to_string(i) + ";\n";
    if (i % 2) f.lines.push_back(line(i, i % 3 ? 1 : 0));
  }
  ASSERT_TRUE(covkit::testing::write_text(f.absolute_path, text));
  model::ProjectCov p;
  p.files.push_back(std::move(f));
  std::string error;
  auto start = std::chrono::steady_clock::now();
  ASSERT_TRUE(write_html_site(p, HtmlOptions{}, tmp / "site", &error)) << error;
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_LT(seconds, 10.0);  // well under a second when linear; a quadratic pass would take minutes
  std::string page = slurp(tmp / "site" + "/" + page_file_name("big/generated.c"));
  EXPECT_EQ(occurrences(page, "<tr id=\"L"), size_t(kLines));
  EXPECT_NE(row(page, kLines - 1).find("class=\"covered\""), std::string::npos);
  EXPECT_NE(row(page, kLines).find("class=\"nocode\""), std::string::npos);
  EXPECT_NE(row(page, 3).find("class=\"uncovered\""), std::string::npos);
}

TEST(HtmlSite, EmptyProjectStillHasAnIndex) {
  TempDir tmp;
  std::string error;
  ASSERT_TRUE(write_html_site(model::ProjectCov{}, HtmlOptions{}, tmp / "site", &error)) << error;
  std::string index = slurp(tmp / "site/index.html");
  EXPECT_NE(index.find("No source files have coverage data."), std::string::npos);
  EXPECT_NE(index.find("0 files in 0 directories"), std::string::npos);
}

TEST(HtmlSite, FailureNamesTheFile) {
  TempDir tmp;
  ASSERT_TRUE(covkit::testing::write_text(tmp / "plain", "not a directory"));
  std::string error;
  EXPECT_FALSE(write_html_site(model::ProjectCov{}, HtmlOptions{}, tmp / "plain/site", &error));
  EXPECT_NE(error.find("cannot create directory " + (tmp / "plain/site")), std::string::npos) << error;
  EXPECT_EQ(error.find('\n'), std::string::npos);

  // A directory where a page must go: the write of that page fails.
  model::ProjectCov p = sample_project(tmp);
  std::string blocked = tmp / "site2/" + page_file_name("lib/missing.c");
  ASSERT_EQ(::mkdir((tmp / "site2").c_str(), 0777), 0);
  ASSERT_EQ(::mkdir(blocked.c_str(), 0777), 0);
  error.clear();
  EXPECT_FALSE(write_html_site(p, HtmlOptions{}, tmp / "site2", &error));
  EXPECT_EQ(error.rfind("cannot write " + blocked + ": ", 0), 0u) << error;
  EXPECT_FALSE(exists(tmp / "site2/index.html"));
}

}  // namespace
}  // namespace covkit::report::html
