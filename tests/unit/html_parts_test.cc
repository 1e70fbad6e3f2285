// report/html building blocks: escaping, page names, rate classes and sort keys.
#include <gtest/gtest.h>

#include <set>

#include "report/html/html_escape.h"
#include "report/html/html_metrics.h"
#include "report/html/html_names.h"

namespace covkit::report::html {
namespace html_parts_test {

TEST(HtmlEscape, EscapesMarkupAndQuotes) {
  EXPECT_EQ(escape("a<b>&\"c'd"), "a&lt;b&gt;&amp;&quot;c&#39;d");
  EXPECT_EQ(escape("plain text\twith tab"), "plain text\twith tab");
  EXPECT_EQ(escape(""), "");
  EXPECT_EQ(escape("&amp;"), "&amp;amp;");
}

// The pages are UTF-8: well-formed sequences pass, a byte that starts none
// (a Latin-1 source's 'caf\xe9', a name with \xff) becomes U+FFFD, so that
// a strict parser accepts the page.
TEST(HtmlEscape, TextThatIsNotUtf8BecomesReplacementCharacters) {
  EXPECT_EQ(escape("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80"), "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80");
  EXPECT_EQ(escape("caf\xe9 <x>"), "caf\xEF\xBF\xBD &lt;x&gt;");
  EXPECT_EQ(escape("x\xff\x01y"), "x\xEF\xBF\xBD\x01y");
  EXPECT_EQ(escape("\xe2\x82"), "\xEF\xBF\xBD\xEF\xBF\xBD");  // cut short: each byte replaced
  EXPECT_EQ(escape("\xc0\xaf"), "\xEF\xBF\xBD\xEF\xBF\xBD");  // overlong
}

TEST(HtmlNames, PageNamesAreFlatSafeAndDistinct) {
  std::string a = page_file_name("a/b_c.c");
  std::string b = page_file_name("a_b/c.c");
  EXPECT_NE(a, b);
  EXPECT_EQ(a.rfind("a_b_c.c-", 0), 0u) << a;
  EXPECT_EQ(a.size(), std::string("a_b_c.c-").size() + 10 + 5);
  EXPECT_TRUE(a.ends_with(".html"));
  for (std::string p : {"../../etc/passwd", "/usr/include/stdio.h", ".hidden.c", "we<ird>&\"name'.c", "sp ace/ü.c",
                        "index.html", "style.css", ""}) {
    std::string n = page_file_name(p);
    EXPECT_EQ(n.find('/'), std::string::npos) << n;
    EXPECT_NE(n[0], '.') << n;
    EXPECT_NE(n, "index.html");
    for (char c : n) EXPECT_TRUE(std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-') << n;
  }
  EXPECT_EQ(page_file_name("../../etc/passwd").rfind("_.._.._etc_passwd-", 0), 0u);
  // Long paths keep their tail and stay well under a file system's limit.
  std::string long_path(2000, 'x');
  long_path += "/tail.c";
  std::string n = page_file_name(long_path);
  EXPECT_LT(n.size(), 160u);
  EXPECT_NE(n.find("tail.c-"), std::string::npos);
  std::set<std::string> distinct;
  for (int i = 0; i < 1000; ++i) distinct.insert(page_file_name("dir/f" + std::to_string(i) + ".c"));
  EXPECT_EQ(distinct.size(), 1000u);
}

TEST(HtmlNames, DirectoryPagesAreFlatAndApartFromFilePages) {
  for (std::string d : {"src", "src/core", "/usr/include/c++/12", ".hidden", "../x", "we<ird>&\"dir'"}) {
    std::string n = directory_page_name(d);
    EXPECT_EQ(n.rfind("dir-", 0), 0u) << n;
    EXPECT_TRUE(n.ends_with(".html")) << n;
    EXPECT_NE(n, page_file_name(d));  // a file and a directory of one name get different pages
    for (char c : n) EXPECT_TRUE(std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-') << n;
  }
  EXPECT_NE(directory_page_name("a/b_c"), directory_page_name("a_b/c"));
}

TEST(HtmlNames, DirectoryAndBaseName) {
  EXPECT_EQ(directory_of("src/a/b.c"), "src/a");
  EXPECT_EQ(directory_of("b.c"), ".");
  EXPECT_EQ(directory_of("/b.c"), "/");
  EXPECT_EQ(base_name_of("src/a/b.c"), "b.c");
  EXPECT_EQ(base_name_of("b.c"), "b.c");
}

TEST(HtmlMetrics, RateClassesAndSortValues) {
  EXPECT_STREQ(rate_class(9, 10), "hi");
  EXPECT_STREQ(rate_class(8, 10), "med");
  EXPECT_STREQ(rate_class(3, 4), "med");
  EXPECT_STREQ(rate_class(7, 10), "lo");
  EXPECT_STREQ(rate_class(0, 0), "hi");
  EXPECT_EQ(sort_value(1, 3), "33.333333");
  EXPECT_EQ(sort_value(0, 0), "-1");  // nothing to cover sorts below 0%
  EXPECT_EQ(sort_value(0, 4), "0.000000");
}

}  // namespace
}  // namespace covkit::report::html
