// report/html: the site written for a hand-built ProjectCov — pages exist,
// line rows carry the ids and classes the browser test and users rely on,
// every name and source byte arrives escaped, and the output directory is
// replaced as a whole, never mixed, never someone else's.
#include "report/html/html_site.h"

#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <filesystem>
#include <map>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include "model/exclusion_markers.h"
#include "model/source_texts.h"
#include "report/html/html_names.h"
#include "test_support.h"
#include "util/sanitizer.h"

namespace covkit::report::html {
namespace html_site_test {

using covkit::testing::TempDir;

std::string slurp(const std::string& path) {
  std::vector<uint8_t> b = covkit::testing::read_bytes(path);
  return std::string(b.begin(), b.end());
}

::testing::AssertionResult written(const Expected<void>& r) {
  if (r) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << r.error().message;
}

// The names in `dir`, sorted ("." and ".." left out).
std::vector<std::string> entries(const std::string& dir) {
  std::vector<std::string> names;
  for (const auto& e : std::filesystem::directory_iterator(dir)) names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

// While alive, files this process writes cannot grow past `bytes` (writes
// fail with EFBIG instead of raising SIGXFSZ).
class FileSizeLimit {
 public:
  explicit FileSizeLimit(rlim_t bytes) {
    ::getrlimit(RLIMIT_FSIZE, &saved_);
    old_handler_ = std::signal(SIGXFSZ, SIG_IGN);
    rlimit lower = saved_;
    lower.rlim_cur = bytes;
    ::setrlimit(RLIMIT_FSIZE, &lower);
  }
  ~FileSizeLimit() {
    ::setrlimit(RLIMIT_FSIZE, &saved_);
    std::signal(SIGXFSZ, old_handler_);
  }

 private:
  rlimit saved_{};
  void (*old_handler_)(int) = nullptr;
};

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

// A project of two-line files whose sources are nowhere: line 1 covered
// or not, line 2 covered.
model::ProjectCov two_line_files(const TempDir& dir, std::initializer_list<std::pair<const char*, int>> files) {
  model::ProjectCov p;
  for (auto [path, covered] : files) {
    model::FileCov f;
    f.path = path;
    f.absolute_path = dir / "nowhere.c";
    f.lines = {line(1, covered), line(2, 1)};
    p.files.push_back(f);
  }
  return p;
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
  ASSERT_TRUE(written(write_html_site(p, opts, out)));
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
  size_t lib = index.find("title=\"show or hide the files\">\u25be</button><a href=\"" + directory_page_name("lib") +
                          "\">lib</a> ");
  size_t core = index.find("title=\"show or hide the files\">\u25be</button><a href=\"" +
                           directory_page_name("src/core") + "\">src/<wbr>core</a> ");
  ASSERT_NE(lib, std::string::npos);
  ASSERT_NE(core, std::string::npos);
  EXPECT_LT(lib, core);
  size_t lib_row = index.find("<tr class=\"group\" data-name=\"lib\" data-line=\"66.666667\"");
  ASSERT_NE(lib_row, std::string::npos);
  // lib has no branches: a dash, not a green 100%, and it sorts below 0%.
  std::string lib_tr = index.substr(lib_row, index.find("</tr>", lib_row) - lib_row);
  EXPECT_NE(lib_tr.find("data-branch=\"-1\""), std::string::npos);
  EXPECT_NE(lib_tr.find("<td class=\"metric na\" title=\"nothing to cover\"><span class=\"bar\" aria-hidden=\"true\">"
                        "</span><span class=\"pct\">-</span><span class=\"frac\">0/0</span></td>"),
            std::string::npos)
      << lib_tr;
  EXPECT_NE(lib_tr.find("<td class=\"metric lo\"><span class=\"bar\" aria-hidden=\"true\"><span style=\"width:66.7%\">"
                        "</span></span><span class=\"pct\">66.7%</span><span class=\"frac\">2/3</span></td>"),
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

// report -j1: the pages are rendered on the calling thread, the work
// given to run alongside them too (before, every core was used whatever -j said).
TEST(HtmlSite, OneThreadWhenAskedForOne) {
  TempDir tmp;
  model::ProjectCov p = sample_project(tmp);
  HtmlOptions opts;
  opts.threads = 1;
  std::thread::id ran_on;
  ASSERT_TRUE(written(write_html_site(p, opts, tmp / "site", [&] { ran_on = std::this_thread::get_id(); })));
  EXPECT_EQ(ran_on, std::this_thread::get_id());
  for (const model::FileCov& f : p.files) EXPECT_TRUE(exists(tmp / ("site/" + page_file_name(f.path)))) << f.path;
}

TEST(HtmlSite, SourcePageMarksEveryKindOfLine) {
  TempDir tmp;
  model::ProjectCov p = sample_project(tmp);
  HtmlOptions opts;
  opts.show_instances = true;
  ASSERT_TRUE(written(write_html_site(p, opts, tmp / "site")));
  std::string page = slurp(tmp / "site" + "/" + page_file_name("src/core/a.c"));

  EXPECT_EQ(row(page, 1),
            "<tr id=\"L1\" class=\"nocode\"><td class=\"num\"><a href=\"#L1\">1</a></td><td class=\"count\"></td>"
            "<td class=\"br\"></td><td class=\"code\"><span class=\"p\">#include</span> "
            "<span class=\"s\">&lt;stdio.h&gt;</span></td></tr>");
  EXPECT_NE(row(page, 2).find("class=\"covered\""), std::string::npos);
  EXPECT_NE(row(page, 2).find("<td class=\"count\">3</td>"), std::string::npos);
  std::string partial = row(page, 3);
  EXPECT_NE(partial.find("<tr id=\"L3\" class=\"partial\">"), std::string::npos);
  EXPECT_NE(partial.find("<summary title=\"1 of 3 branches taken\">1/3</summary>"), std::string::npos);
  EXPECT_NE(partial.find("1/3 branches taken"), std::string::npos);
  EXPECT_NE(partial.find("<li class=\"taken\">branch 0: taken 3\u00d7</li>"), std::string::npos);
  EXPECT_NE(partial.find("<li class=\"nottaken\">branch 1: never taken</li>"), std::string::npos);
  EXPECT_NE(partial.find("<li class=\"nottaken\">branch 2: never taken (throw)</li>"), std::string::npos);
  EXPECT_NE(partial.find("<span class=\"k\">if</span> (x &gt; <span class=\"n\">0</span> &amp;&amp; x &lt; "
                         "<span class=\"n\">10</span>)"),
            std::string::npos);
  EXPECT_NE(row(page, 4).find("<td class=\"count\">1<span class=\"star\""), std::string::npos);
  EXPECT_NE(row(page, 5).find("<tr id=\"L5\" class=\"uncovered\"><td class=\"num\"><a href=\"#L5\">5</a></td>"
                              "<td class=\"count\">0</td>"),
            std::string::npos);
  std::string excluded = row(page, 7);
  EXPECT_NE(excluded.find("class=\"excluded\""), std::string::npos);
  EXPECT_NE(excluded.find("<td class=\"count\"><span title=\"excluded\">\u2014</span></td>"), std::string::npos);
  // Tabs are kept (CSS tab-size lays them out) and the DOS '\r' dropped.
  EXPECT_NE(row(page, 8).find("<td class=\"code\">\t<span class=\"k\">int</span> t = <span class=\"n\">1</span> &lt; "
                              "<span class=\"n\">2</span> &amp;&amp; <span class=\"n\">3</span> &gt; "
                              "<span class=\"n\">1</span>; <span class=\"c\">/* tab */</span></td>"),
            std::string::npos)
      << row(page, 8);
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
  ASSERT_TRUE(written(write_html_site(p, HtmlOptions{}, tmp / "site")));
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
  ASSERT_TRUE(written(write_html_site(p, HtmlOptions{}, tmp / "site")));
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
  ASSERT_TRUE(written(write_html_site(p, HtmlOptions{}, tmp / "site")));
  std::string page = slurp(tmp / "site" + "/" + page_file_name("lib/we<ird>&\"name'.c"));
  EXPECT_NE(page.find("<span class=\"k\">char</span>* s = "
                      "<span class=\"s\">&quot;&lt;script&gt;alert(1)&lt;/script&gt;&quot;</span>;"),
            std::string::npos);
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
  ASSERT_TRUE(written(write_html_site(p, HtmlOptions{}, tmp / "site")));
  std::string page = slurp(tmp / "site" + "/" + page_file_name("stale.c"));
  EXPECT_NE(page.find("id=\"source-stale\">Notice: the coverage data names line 4000000000 but the source has 2 lines"),
            std::string::npos);
  EXPECT_EQ(occurrences(page, "<tr id=\"L"), 4u);
  EXPECT_NE(row(page, 100).find("class=\"uncovered\""), std::string::npos);
  EXPECT_NE(row(page, 100).find("(no such line in the source)"), std::string::npos);
  EXPECT_NE(row(page, 4000000000u).find("<td class=\"count\">5</td>"), std::string::npos);
}

TEST(HtmlSite, LargeFileHasEveryRow) {
  TempDir tmp;
  // Under the sanitizers (~15 s for 200,000 rows there) a tenth: that pass
  // looks for memory errors, which a 20,000-row page meets as well.
  constexpr uint32_t kLines = COVKIT_ASAN ? 20000 : 200000;
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
  // How fast is bench/html_large_file.sh's business, not a unit test's.
  ASSERT_TRUE(written(write_html_site(p, HtmlOptions{}, tmp / "site")));
  std::string page = slurp(tmp / "site" + "/" + page_file_name("big/generated.c"));
  EXPECT_EQ(occurrences(page, "<tr id=\"L"), size_t(kLines));
  EXPECT_NE(row(page, kLines - 1).find("class=\"covered\""), std::string::npos);
  EXPECT_NE(row(page, kLines).find("class=\"nocode\""), std::string::npos);
  EXPECT_NE(row(page, 3).find("class=\"uncovered\""), std::string::npos);
}

// The nested view: a page per directory with files, listing its nearest
// listed subdirectories (with their subtree's totals) and its files; every
// header links each parent directory that has a page; the project's
// directories come first in the index.
TEST(HtmlSite, DirectoryPagesNestAndLink) {
  TempDir tmp;
  model::ProjectCov p = two_line_files(tmp, {{"/opt/dep/q.c", 0}, {"/usr/include/z.h", 1}, {"a.c", 1},
                                             {"src/core/a.c", 1}, {"src/core/io/b.c", 0}, {"src/x.c", 1}});
  const std::string site = tmp / "site";
  ASSERT_TRUE(written(write_html_site(p, HtmlOptions{}, site)));
  for (const char* d : {"src", "src/core", "src/core/io", "/opt/dep", "/usr/include"})
    EXPECT_TRUE(exists(site + "/" + directory_page_name(d))) << d;
  EXPECT_FALSE(exists(site + "/" + directory_page_name("/usr")));  // holds no file
  EXPECT_FALSE(exists(site + "/" + directory_page_name(".")));     // the index stands for it

  // Index: top level, then the project's directories by name, then the rest.
  std::string index = slurp(site + "/index.html");
  std::vector<size_t> at;
  for (const char* d : {"data-name=\".\"", "data-name=\"src\"", "data-name=\"src/core\"", "data-name=\"src/core/io\"",
                        "data-name=\"/opt/dep\"", "data-name=\"/usr/include\""})
    at.push_back(index.find(std::string("<tr class=\"group\" ") + d));
  for (size_t i = 0; i < at.size(); ++i) ASSERT_NE(at[i], std::string::npos) << i;
  EXPECT_TRUE(std::is_sorted(at.begin(), at.end()));
  EXPECT_NE(index.find("6 files in 6 directories"), std::string::npos);

  // src: its subdirectory core/ with core's and io's lines (4/4 + ... = 3/4),
  // then its file x.c; header "src" without a link to itself.
  std::string src = slurp(site + "/" + directory_page_name("src"));
  EXPECT_NE(src.find("<title>src \u2014 covkit coverage</title>"), std::string::npos);
  EXPECT_NE(src.find("<span class=\"crumb\"> / src</span>"), std::string::npos);
  EXPECT_NE(src.find("<tr class=\"subdir\" data-name=\"core/\" data-line=\"75.000000\" data-func=\"-1\" "
                     "data-branch=\"-1\"><td class=\"name\"><a href=\"" +
                     directory_page_name("src/core") + "\" title=\"src/core\">core/</a></td>"),
            std::string::npos)
      << src;
  EXPECT_NE(src.find("<tr class=\"file\" data-name=\"x.c\""), std::string::npos);
  EXPECT_EQ(src.find("data-name=\"io/\""), std::string::npos);  // io is under core
  EXPECT_NE(src.find("<div class=\"frac\">5 of 6 covered</div>"), std::string::npos);  // the subtree's lines
  EXPECT_NE(src.find("1 file and 1 directory"), std::string::npos);

  std::string core = slurp(site + "/" + directory_page_name("src/core"));
  EXPECT_NE(core.find("<span class=\"crumb\"> / <a href=\"" + directory_page_name("src") + "\">src</a>/core</span>"),
            std::string::npos);
  EXPECT_NE(core.find("data-name=\"io/\""), std::string::npos);

  std::string b = slurp(site + "/" + page_file_name("src/core/io/b.c"));
  EXPECT_NE(b.find("<span class=\"crumb\"> / <a href=\"" + directory_page_name("src") + "\">src</a>/<a href=\"" +
                   directory_page_name("src/core") + "\">core</a>/<a href=\"" + directory_page_name("src/core/io") +
                   "\">io</a>/b.c</span>"),
            std::string::npos);
  std::string z = slurp(site + "/" + page_file_name("/usr/include/z.h"));
  EXPECT_NE(z.find("<span class=\"crumb\"> / /usr/<a href=\"" + directory_page_name("/usr/include") +
                   "\">include</a>/z.h</span>"),
            std::string::npos);
}

// A directory's totals follow one rule wherever they are shown: its files
// and those of every directory below it. The index's row for src counted
// only src's own file (1/1) while src's page said 3 of 4.
TEST(HtmlSite, ADirectoryCountsItsSubtreeOnEveryPage) {
  TempDir tmp;
  model::ProjectCov p = two_line_files(tmp, {{"src/a.c", 1}, {"src/sub/b.c", 0}, {"src/sub/deep/c.c", 1}});
  const std::string site = tmp / "site";
  ASSERT_TRUE(written(write_html_site(p, HtmlOptions{}, site)));
  const std::string index = slurp(site + "/index.html");
  const std::string src = slurp(site + "/" + directory_page_name("src"));
  const std::string sub = slurp(site + "/" + directory_page_name("src/sub"));
  // src: 5 of 6 lines (a.c 2/2, b.c 1/2, c.c 2/2); src/sub: 3 of 4.
  EXPECT_NE(src.find("<div class=\"frac\">5 of 6 covered</div>"), std::string::npos);
  EXPECT_NE(sub.find("<div class=\"frac\">3 of 4 covered</div>"), std::string::npos);
  auto group_row = [&](const std::string& dir) {
    size_t at = index.find("<tr class=\"group\" data-name=\"" + dir + "\"");
    return at == std::string::npos ? std::string() : index.substr(at, index.find("</tr>", at) - at);
  };
  const std::string src_row = group_row("src"), sub_row = group_row("src/sub");
  EXPECT_NE(src_row.find("data-line=\"83.333333\""), std::string::npos) << src_row;
  EXPECT_NE(src_row.find("<span class=\"frac\">5/6</span>"), std::string::npos) << src_row;
  EXPECT_NE(src_row.find("<span class=\"nfiles\">1 file (3 with its subdirectories)</span>"), std::string::npos)
      << src_row;
  EXPECT_NE(sub_row.find("<span class=\"frac\">3/4</span>"), std::string::npos) << sub_row;
  EXPECT_NE(sub_row.find("<span class=\"nfiles\">1 file (2 with its subdirectories)</span>"), std::string::npos)
      << sub_row;
  const std::string deep_row = group_row("src/sub/deep");
  EXPECT_NE(deep_row.find("<span class=\"nfiles\">1 file</span>"), std::string::npos) << deep_row;
  // src's page lists sub/ with the same 3/4 its own page and its index row show.
  size_t sub_on_src = src.find("<tr class=\"subdir\" data-name=\"sub/\" data-line=\"75.000000\"");
  ASSERT_NE(sub_on_src, std::string::npos) << src;
  EXPECT_NE(src.substr(sub_on_src, src.find("</tr>", sub_on_src) - sub_on_src).find("<span class=\"frac\">3/4</span>"),
            std::string::npos);
}

// Constructor and destructor variants share a demangled name; the function
// table labels each from its mangled name.
TEST(HtmlSite, ConstructorAndDestructorVariantsAreLabelled) {
  TempDir tmp;
  model::FileCov f;
  f.path = "a.cc";
  f.absolute_path = tmp / "a.cc";
  ASSERT_TRUE(covkit::testing::write_text(f.absolute_path, "struct A { A(); virtual ~A(); };\n"));
  f.lines = {line(1, 1)};
  f.functions = {function("_ZN1AC1Ev", "A::A()", 1, 1, 1, 1), function("_ZN1AC2Ev", "A::A()", 1, 0, 1, 0),
                 function("_ZN1AD0Ev", "A::~A()", 1, 1, 1, 1), function("_ZN1AD1Ev", "A::~A()", 1, 1, 1, 1),
                 function("_ZN1AD2Ev", "A::~A()", 1, 0, 1, 0), function("_Z1fv", "f()", 1, 1, 1, 1)};
  f.lines[0].instances = {{"_ZN1AC1Ev", 1}, {"_ZN1AC2Ev", 0}};
  model::ProjectCov p;
  p.files = {f};
  HtmlOptions opts;
  opts.show_instances = true;
  ASSERT_TRUE(written(write_html_site(p, opts, tmp / "site")));
  std::string page = slurp(tmp / "site/" + page_file_name("a.cc"));
  auto label = [&](const std::string& mangled, const std::string& name) {
    return "<a href=\"#L1\" title=\"" + mangled + "\">" + name + "</a> <span class=\"variant\" title=\"";
  };
  for (auto [mangled, name, badge] :
       {std::tuple{"_ZN1AC1Ev", "A::A()", "C1 complete"}, {"_ZN1AC2Ev", "A::A()", "C2 base"},
        {"_ZN1AD0Ev", "A::~A()", "D0 deleting"}, {"_ZN1AD1Ev", "A::~A()", "D1 complete"},
        {"_ZN1AD2Ev", "A::~A()", "D2 base"}}) {
    size_t at = page.find(label(mangled, name));
    ASSERT_NE(at, std::string::npos) << mangled;
    size_t end = page.find("</span>", at);
    EXPECT_TRUE(page.substr(at, end - at).ends_with(std::string(badge))) << page.substr(at, end - at);
  }
  EXPECT_NE(page.find("<a href=\"#L1\" title=\"_Z1fv\">f()</a></td>"), std::string::npos);
  EXPECT_NE(page.find("<span class=\"icount\">0</span>A::A() <span class=\"variant\" title=\"base-object constructor"),
            std::string::npos);
}

// Only C and C++ are highlighted; other text is escaped as it is.
TEST(HtmlSite, OnlyCAndCxxAreHighlighted) {
  TempDir tmp;
  model::FileCov f;
  f.path = "gen/parse.y";
  f.absolute_path = tmp / "parse.y";
  ASSERT_TRUE(covkit::testing::write_text(f.absolute_path, "int x = 1; /* <c> */\n"));
  f.lines = {line(1, 1)};
  model::ProjectCov p;
  p.files = {f};
  ASSERT_TRUE(written(write_html_site(p, HtmlOptions{}, tmp / "site")));
  std::string page = slurp(tmp / "site/" + page_file_name("gen/parse.y"));
  EXPECT_NE(row(page, 1).find("<td class=\"code\">int x = 1; /* &lt;c&gt; */</td>"), std::string::npos) << row(page, 1);
}

TEST(HtmlSite, EmptyProjectStillHasAnIndex) {
  TempDir tmp;
  ASSERT_TRUE(written(write_html_site(model::ProjectCov{}, HtmlOptions{}, tmp / "site")));
  std::string index = slurp(tmp / "site/index.html");
  EXPECT_NE(index.find("No source files have coverage data."), std::string::npos);
  EXPECT_NE(index.find("0 files in 0 directories"), std::string::npos);
}

TEST(HtmlSite, FailureNamesTheDirectory) {
  TempDir tmp;
  ASSERT_TRUE(covkit::testing::write_text(tmp / "plain", "not a directory"));
  Expected<void> r = write_html_site(model::ProjectCov{}, HtmlOptions{}, tmp / "plain/site");
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().message.rfind("cannot create directory " + (tmp / "plain/site") + ": ", 0), 0u)
      << r.error().message;
  EXPECT_EQ(r.error().message.find('\n'), std::string::npos);
}

// `covkit report --html build/` with the output directory forgotten: the
// build tree is not a covkit site, so nothing is written into it (nor beside it).
TEST(HtmlSite, RefusesANonEmptyDirectoryItDidNotWrite) {
  TempDir tmp;
  const std::string build = tmp / "build";
  ASSERT_EQ(::mkdir(build.c_str(), 0777), 0);
  ASSERT_EQ(::mkdir((build + "/CMakeFiles").c_str(), 0777), 0);
  ASSERT_TRUE(covkit::testing::write_text(build + "/CMakeCache.txt", "CMAKE_BUILD_TYPE:STRING=Debug\n"));
  Expected<void> r = write_html_site(sample_project(tmp), HtmlOptions{}, build);
  ASSERT_FALSE(r);
  const std::string& m = r.error().message;
  EXPECT_EQ(m.rfind(build + " is not empty and holds no covkit HTML report", 0), 0u) << m;
  EXPECT_NE(m.find("give --html a new or empty directory"), std::string::npos) << m;
  EXPECT_EQ(m.find('\n'), std::string::npos);
  EXPECT_EQ(entries(build), (std::vector<std::string>{"CMakeCache.txt", "CMakeFiles"}));
  EXPECT_EQ(entries(tmp.path()), (std::vector<std::string>{"a.c", "build", "weird.c"}));
  // A trailing slash or a symbolic link names the same directory.
  EXPECT_FALSE(write_html_site(model::ProjectCov{}, HtmlOptions{}, build + "/"));
  ASSERT_EQ(::symlink(build.c_str(), (tmp / "link").c_str()), 0);
  EXPECT_FALSE(write_html_site(model::ProjectCov{}, HtmlOptions{}, tmp / "link"));
  EXPECT_EQ(entries(build), (std::vector<std::string>{"CMakeCache.txt", "CMakeFiles"}));
  // A marker covkit did not write does not make a directory covkit's.
  ASSERT_TRUE(covkit::testing::write_text(build + "/.covkit-html", "index.html\n"));
  EXPECT_FALSE(write_html_site(model::ProjectCov{}, HtmlOptions{}, build));
  EXPECT_EQ(entries(build), (std::vector<std::string>{".covkit-html", "CMakeCache.txt", "CMakeFiles"}));
}

TEST(HtmlSite, AnEmptyDirectoryIsUsedAndMarked) {
  TempDir tmp;
  const std::string site = tmp / "site";
  ASSERT_EQ(::mkdir(site.c_str(), 0750), 0);
  ASSERT_TRUE(written(write_html_site(model::ProjectCov{}, HtmlOptions{}, site)));
  EXPECT_EQ(entries(site), (std::vector<std::string>{".covkit-html", "index.html", "sort.js", "style.css"}));
  EXPECT_EQ(slurp(site + "/.covkit-html"),
            "covkit html report: the files covkit wrote (it replaces them as a whole)\n"
            "style.css\nsort.js\nindex.html\n");
  struct stat st {};
  ASSERT_EQ(::stat(site.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0750u);  // the directory keeps the mode it had
  EXPECT_EQ(entries(tmp.path()), (std::vector<std::string>{"site"}));
}

// A reused output directory: pages of files no longer in the report go, a
// user's own files in it stay, and nothing is left beside it.
TEST(HtmlSite, ReplacesItsOwnSiteWithoutStalePages) {
  TempDir tmp;
  const std::string site = tmp / "out/site";
  model::ProjectCov p = sample_project(tmp);
  ASSERT_TRUE(written(write_html_site(p, HtmlOptions{}, site)));
  EXPECT_EQ(entries(site).size(), 4u + 2u + p.files.size());  // and the pages of lib and src/core
  ASSERT_TRUE(covkit::testing::write_text(site + "/NOTES.txt", "mine"));
  ASSERT_EQ(::mkdir((site + "/extra").c_str(), 0777), 0);

  model::ProjectCov smaller;
  smaller.files = {p.files[2]};  // src/core/a.c only
  ASSERT_TRUE(written(write_html_site(smaller, HtmlOptions{}, site)));
  std::vector<std::string> want = {".covkit-html", "NOTES.txt",  "extra", "index.html", page_file_name("src/core/a.c"),
                                   directory_page_name("src/core"), "sort.js", "style.css"};
  std::sort(want.begin(), want.end());
  EXPECT_EQ(entries(site), want);
  EXPECT_EQ(slurp(site + "/NOTES.txt"), "mine");
  EXPECT_EQ(entries(tmp / "out"), (std::vector<std::string>{"site"}));
  EXPECT_EQ(slurp(site + "/index.html").find("missing.c"), std::string::npos);
}

// The file size limit makes the write of a large page fail half way: the
// previous site must stay as it was, complete, and no staging directory stay.
TEST(HtmlSite, AFailedRunLeavesThePreviousSite) {
  TempDir tmp;
  const std::string site = tmp / "out/site";
  model::ProjectCov p = sample_project(tmp);
  ASSERT_TRUE(written(write_html_site(p, HtmlOptions{}, site)));
  std::map<std::string, std::string> before;
  for (const std::string& n : entries(site)) before[n] = slurp(site + "/" + n);

  model::FileCov big;
  big.path = "big.c";
  big.absolute_path = tmp / "big.c";
  ASSERT_TRUE(covkit::testing::write_text(big.absolute_path, std::string(1 << 20, 'x') + "\n"));
  big.lines = {line(1, 1)};
  p.files.insert(p.files.begin(), big);
  {
    FileSizeLimit limit(256 * 1024);
    Expected<void> r = write_html_site(p, HtmlOptions{}, site);
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().message.rfind("cannot write " + site + "/" + page_file_name("big.c") + ": ", 0), 0u)
        << r.error().message;
  }
  std::map<std::string, std::string> after;
  for (const std::string& n : entries(site)) after[n] = slurp(site + "/" + n);
  EXPECT_EQ(after, before);
  EXPECT_EQ(entries(tmp / "out"), (std::vector<std::string>{"site"}));
}

// Only names the marker lists are covkit's: a marker naming "../x" or a
// user's file does not make covkit remove anything but its own pages.
TEST(HtmlSite, AMarkerCannotNameFilesOutsideTheSite) {
  TempDir tmp;
  const std::string site = tmp / "site";
  ASSERT_TRUE(written(write_html_site(model::ProjectCov{}, HtmlOptions{}, site)));
  ASSERT_TRUE(covkit::testing::write_text(tmp / "precious", "keep"));
  ASSERT_TRUE(covkit::testing::write_text(
      site + "/.covkit-html",
      "covkit html report: the files covkit wrote (it replaces them as a whole)\n../precious\n/etc/passwd\n\n.\n"
      "index.html\nstyle.css\nsort.js\n"));
  ASSERT_TRUE(written(write_html_site(model::ProjectCov{}, HtmlOptions{}, site)));
  EXPECT_EQ(slurp(tmp / "precious"), "keep");
  EXPECT_EQ(entries(site), (std::vector<std::string>{".covkit-html", "index.html", "sort.js", "style.css"}));
}

}  // namespace
}  // namespace covkit::report::html

namespace covkit::report::html {
namespace html_site_test {

// covkit sample --show-inferred: a covered line known only by inference
// carries a mark; an observed line and an uncovered one do not.
TEST(HtmlSite, InferredLinesAreMarked) {
  TempDir tmp;
  model::FileCov f;
  f.path = "a.c";
  f.absolute_path = tmp / "a.c";
  ASSERT_TRUE(covkit::testing::write_text(f.absolute_path, "int a;\nint b;\nint c;\n"));
  f.lines = {line(1, 1), line(2, 1), line(3, 0)};
  f.lines[1].inferred = true;
  f.lines[2].inferred = true;  // not covered: nothing to mark
  model::ProjectCov p;
  p.files = {f};
  ASSERT_TRUE(written(write_html_site(p, HtmlOptions{}, tmp / "site")));
  const std::string page = slurp(tmp / "site/" + page_file_name("a.c"));
  auto row = [&](int n) {
    size_t at = page.find("<tr id=\"L" + std::to_string(n) + "\"");
    return at == std::string::npos ? std::string() : page.substr(at, page.find("</tr>", at) - at);
  };
  EXPECT_EQ(row(1).find("class=\"inferred\""), std::string::npos) << row(1);
  EXPECT_NE(row(2).find("class=\"inferred\""), std::string::npos) << row(2);
  EXPECT_EQ(row(3).find("class=\"inferred\""), std::string::npos) << row(3);
  // The legend says what the 'i' means, on the pages that have one.
  const std::string legend = page.substr(page.find("id=\"legend\""), page.find("</ul>", page.find("id=\"legend\"")) -
                                                                          page.find("id=\"legend\""));
  EXPECT_NE(legend.find("<span class=\"inferred\">i</span> covered only by inference"), std::string::npos) << legend;
  f.lines[1].inferred = false;
  p.files = {f};
  ASSERT_TRUE(written(write_html_site(p, HtmlOptions{}, tmp / "site")));
  EXPECT_EQ(slurp(tmp / "site/" + page_file_name("a.c")).find("covered only by inference"), std::string::npos);
}

// A source is read once per report: the exclusion markers read it and keep
// it, and the page shows that text (with its markers applied), not the file
// as it is by the time the pages are written; a source the markers could
// not read is reported with their reason, without a second try.
TEST(HtmlSite, PagesShowTheTextTheExclusionMarkersRead) {
  TempDir tmp;
  model::FileCov f;
  f.path = "a.c";
  f.absolute_path = tmp / "a.c";
  ASSERT_TRUE(covkit::testing::write_text(f.absolute_path, "int kept; // LCOV_EXCL_LINE\nint b;\n"));
  f.lines = {line(1, 1), line(2, 0)};
  model::FileCov gone = f;
  gone.path = "gone.c";
  gone.absolute_path = tmp / "gone.c";
  model::ProjectCov p;
  p.files = {f, gone};
  model::SourceTexts texts;
  const model::SourceExclusions found = model::apply_source_exclusions(p, 2, &texts);
  EXPECT_TRUE(found.warnings.empty());
  ASSERT_EQ(found.unreadable.size(), 1u);
  EXPECT_EQ(found.unreadable[0].path, gone.absolute_path);
  EXPECT_NE(found.unreadable[0].why.find("No such file or directory"), std::string::npos) << found.unreadable[0].why;
  ASSERT_NE(texts.find(f.absolute_path), nullptr);
  ASSERT_TRUE(texts.find(f.absolute_path)->data.has_value());
  ASSERT_NE(texts.find(gone.absolute_path), nullptr);
  EXPECT_FALSE(texts.find(gone.absolute_path)->data.has_value());
  // Changed after it was read; and the unreadable one appears.
  ASSERT_TRUE(covkit::testing::write_text(f.absolute_path, "int changed;\nint b;\n"));
  ASSERT_TRUE(covkit::testing::write_text(gone.absolute_path, "int late;\nint b;\n"));
  HtmlOptions o;
  o.sources = &texts;
  ASSERT_TRUE(written(write_html_site(p, o, tmp / "site")));
  const std::string page = slurp(tmp / "site/" + page_file_name("a.c"));
  EXPECT_NE(page.find("kept"), std::string::npos);
  EXPECT_EQ(page.find("changed"), std::string::npos);
  EXPECT_NE(row(page, 1).find("class=\"excluded\""), std::string::npos) << row(page, 1);
  const std::string missing = slurp(tmp / "site/" + page_file_name("gone.c"));
  EXPECT_NE(missing.find("id=\"source-missing\""), std::string::npos);
  EXPECT_NE(missing.find("No such file or directory"), std::string::npos);
  EXPECT_EQ(missing.find("late"), std::string::npos);
  // Without the kept texts, a page reads its source.
  ASSERT_TRUE(written(write_html_site(p, HtmlOptions{}, tmp / "site")));
  EXPECT_NE(slurp(tmp / "site/" + page_file_name("a.c")).find("changed"), std::string::npos);
}

}  // namespace
}  // namespace covkit::report::html
