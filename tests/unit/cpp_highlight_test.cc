// report/html/cpp_highlight: each kind of token, constructs spanning lines
// (each row stays a closed fragment), and hostile text: the markup removed
// and the entities decoded give back exactly the input, and no byte of the
// input can open a tag.
#include "report/html/cpp_highlight.h"

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "report/html/html_out.h"
#include "util/utf8.h"

namespace covkit::report::html {
namespace cpp_highlight_test {

std::vector<std::string> highlight(const std::vector<std::string>& lines) {
  CppHighlighter h;
  std::vector<std::string> out;
  for (const std::string& l : lines) {
    std::string row;
    h.append_line(row, l);
    out.push_back(std::move(row));
  }
  return out;
}

std::string one(const std::string& line) { return highlight({line})[0]; }

// The text a browser shows: tags dropped, the five entities decoded.
// What a page shows of `s`: the pages are UTF-8, so a byte that starts no
// well-formed sequence is shown as U+FFFD (html_escape.h).
std::string as_shown(const std::string& s) {
  std::string out;
  for (size_t i = 0; i < s.size();) {
    const size_t n = static_cast<unsigned char>(s[i]) < 0x80 ? 1 : util::utf8_length(s, i);
    out += n == 0 ? std::string(util::kReplacement) : s.substr(i, n);
    i += n == 0 ? 1 : n;
  }
  return out;
}

std::string visible_text(const std::string& html) {
  std::string text;
  for (size_t i = 0; i < html.size(); ++i) {
    if (html[i] == '<') {
      i = html.find('>', i);
      continue;
    }
    if (html[i] == '&') {
      size_t semi = html.find(';', i);
      std::string entity = html.substr(i, semi - i + 1);
      text += entity == "&amp;"    ? "&"
              : entity == "&lt;"   ? "<"
              : entity == "&gt;"   ? ">"
              : entity == "&quot;" ? "\""
                                   : "'";
      i = semi;
      continue;
    }
    text += html[i];
  }
  return text;
}

// Every tag is one of the highlighter's own, and spans are balanced.
bool only_own_tags(const std::string& html) {
  int depth = 0;
  for (size_t i = html.find('<'); i != std::string::npos; i = html.find('<', i + 1)) {
    if (html.compare(i, 7, "</span>") == 0) {
      if (--depth < 0) return false;
      continue;
    }
    bool known = false;
    for (char c : std::string("cspkn")) known |= html.compare(i, 16, std::string("<span class=\"") + c + "\">") == 0;
    if (!known || depth++ != 0) return false;  // spans never nest
  }
  return depth == 0;
}

TEST(CppHighlight, TokensOfOneLine) {
  EXPECT_EQ(one("int x = 42; // the answer"),
            "<span class=\"k\">int</span> x = <span class=\"n\">42</span>; <span class=\"c\">// the answer</span>");
  EXPECT_EQ(one("return a<b && s == \"x<y\";"),
            "<span class=\"k\">return</span> a&lt;b &amp;&amp; s == <span class=\"s\">&quot;x&lt;y&quot;</span>;");
  EXPECT_EQ(
      one("char c = '\\''; /* q */ c++;"),
      "<span class=\"k\">char</span> c = <span class=\"s\">&#39;\\&#39;&#39;</span>; <span class=\"c\">/* q */</span> "
      "c++;");
  // Keywords only as whole words; identifiers that contain them stay plain.
  EXPECT_EQ(one("integer do_it(format);"), "integer do_it(format);");
  EXPECT_EQ(one("x = 1'000'000ull + 0x1Fp-3 + .5e+10f + 3.;"),
            "x = <span class=\"n\">1&#39;000&#39;000ull</span> + <span class=\"n\">0x1Fp-3</span> + "
            "<span class=\"n\">.5e+10f</span> + <span class=\"n\">3.</span>;");
  EXPECT_EQ(one("a.b2 = v2;"), "a.b2 = v2;");
  EXPECT_EQ(one("auto s = u8\"a\" L'b' U\"c\";"),
            "<span class=\"k\">auto</span> s = <span class=\"s\">u8&quot;a&quot;</span> <span "
            "class=\"s\">L&#39;b&#39;</span> "
            "<span class=\"s\">U&quot;c&quot;</span>;");
  EXPECT_EQ(one("s = \"a\\\"b\" + R;"), "s = <span class=\"s\">&quot;a\\&quot;b&quot;</span> + R;");
}

TEST(CppHighlight, PreprocessorLines) {
  EXPECT_EQ(one("#include <vector>"), "<span class=\"p\">#include</span> <span class=\"s\">&lt;vector&gt;</span>");
  EXPECT_EQ(
      one("  #  include \"a.h\" // why"),
      "  <span class=\"p\">#  include</span> <span class=\"s\">&quot;a.h&quot;</span> <span class=\"c\">// why</span>");
  EXPECT_EQ(one("#define MAX(a, b) ((a) > (b) ? (a) : 1)"),
            "<span class=\"p\">#define</span> MAX(a, b) ((a) &gt; (b) ? (a) : <span class=\"n\">1</span>)");
  EXPECT_EQ(one("#if defined(X) && X > 2"),
            "<span class=\"p\">#if</span> defined(X) &amp;&amp; X &gt; <span class=\"n\">2</span>");
  // In a continued #define, a leading '#' is the stringizing operator.
  std::vector<std::string> rows = highlight({"#define S(x) \\", "  #x"});
  EXPECT_EQ(rows[1], "  #x");
  EXPECT_EQ(one("a = b # c;"), "a = b # c;");
}

TEST(CppHighlight, BlockCommentsSpanLines) {
  std::vector<std::string> rows = highlight({"x = 1; /* starts", "  in <the> middle", "ends */ int y;", "int z;"});
  EXPECT_EQ(rows[0], "x = <span class=\"n\">1</span>; <span class=\"c\">/* starts</span>");
  EXPECT_EQ(rows[1], "<span class=\"c\">  in &lt;the&gt; middle</span>");
  EXPECT_EQ(rows[2], "<span class=\"c\">ends */</span> <span class=\"k\">int</span> y;");
  EXPECT_EQ(rows[3], "<span class=\"k\">int</span> z;");
  // "/*/" does not close itself; an empty line inside stays empty.
  rows = highlight({"/*/ int", "", "*/ int"});
  EXPECT_EQ(rows[0], "<span class=\"c\">/*/ int</span>");
  EXPECT_EQ(rows[1], "");
  EXPECT_EQ(rows[2], "<span class=\"c\">*/</span> <span class=\"k\">int</span>");
  // A '#' inside a comment is not a directive.
  rows = highlight({"/*", "#include <x>", "*/"});
  EXPECT_EQ(rows[1], "<span class=\"c\">#include &lt;x&gt;</span>");
}

TEST(CppHighlight, RawStringsSpanLinesAndHonourTheirDelimiter) {
  std::vector<std::string> rows =
      highlight({"auto s = R\"x(one )\" still", "// not a comment */ \"", ")x\"; int after;", "int next;"});
  EXPECT_EQ(rows[0], "<span class=\"k\">auto</span> s = <span class=\"s\">R&quot;x(one )&quot; still</span>");
  EXPECT_EQ(rows[1], "<span class=\"s\">// not a comment */ &quot;</span>");
  EXPECT_EQ(rows[2], "<span class=\"s\">)x&quot;</span>; <span class=\"k\">int</span> after;");
  EXPECT_EQ(rows[3], "<span class=\"k\">int</span> next;");
  EXPECT_EQ(one("f(LR\"(a\\)\", u8R\"--(b)--\");"),
            "f(<span class=\"s\">LR&quot;(a\\)&quot;</span>, <span class=\"s\">u8R&quot;--(b)--&quot;</span>);");
}

TEST(CppHighlight, BackslashContinuesStringsAndLineComments) {
  std::vector<std::string> rows = highlight({"s = \"abc\\", "def\"; int i;", "// c \\", "still comment", "int j;"});
  EXPECT_EQ(rows[0], "s = <span class=\"s\">&quot;abc\\</span>");
  EXPECT_EQ(rows[1], "<span class=\"s\">def&quot;</span>; <span class=\"k\">int</span> i;");
  EXPECT_EQ(rows[2], "<span class=\"c\">// c \\</span>");
  EXPECT_EQ(rows[3], "<span class=\"c\">still comment</span>");
  EXPECT_EQ(rows[4], "<span class=\"k\">int</span> j;");
  // An unterminated literal without a backslash ends with its line.
  rows = highlight({"s = \"open", "int k;"});
  EXPECT_EQ(rows[0], "s = <span class=\"s\">&quot;open</span>");
  EXPECT_EQ(rows[1], "<span class=\"k\">int</span> k;");
}

// Any bytes: the visible text is the input, and the only tags are ours.
TEST(CppHighlight, HostileTextRoundTrips) {
  const std::vector<std::string> samples = {"</td></tr><script>alert(1)</script>",
                                            "\"<img src=x onerror=alert(1)>\"",
                                            "'&amp;'",
                                            "R\"(<b>)\"",
                                            "/* <!-- */ -->",
                                            "#include <<script>>",
                                            "u8R\"((\"",
                                            "\xff\xfe\x80 int \xe2\x82\xac",
                                            "\\",
                                            "#",
                                            "'",
                                            "\"",
                                            "R\"",
                                            "R\"12345678901234567(x)12345678901234567\"",
                                            "0x'",
                                            "1e",
                                            ".",
                                            "/",
                                            "/*",
                                            "*/",
                                            "//",
                                            "\t#\tdefine\t"};
  for (const std::string& s : samples) {
    std::string html = one(s);
    EXPECT_EQ(visible_text(html), as_shown(s)) << html;
    EXPECT_TRUE(only_own_tags(html)) << html;
  }
  // Random lines over an alphabet rich in C's special characters, highlighted
  // as one file (so states carry between lines).
  std::mt19937 rng(12345);
  const std::string alphabet = "abRuLU8x01.e+-'\"\\/*#<>&()  \t;\xc3\xa9";
  for (int file = 0; file < 200; ++file) {
    std::vector<std::string> lines(8);
    for (std::string& l : lines)
      for (size_t n = rng() % 40; n > 0; --n) l += alphabet[rng() % alphabet.size()];
    std::vector<std::string> rows = highlight(lines);
    for (size_t i = 0; i < lines.size(); ++i) {
      EXPECT_EQ(visible_text(rows[i]), as_shown(lines[i])) << rows[i];
      EXPECT_TRUE(only_own_tags(rows[i])) << rows[i];
    }
  }
}

// A whole text highlighted as the source pages do it (begin_text, then
// each line as a view into the text): the masks are the text's, so tokens
// cross their 64-byte words at every offset.
std::vector<std::string> highlight_text(const std::string& text) {
  CppHighlighter h;
  h.begin_text(text);
  std::vector<std::string> rows;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t nl = text.find('\n', pos);
    if (nl == std::string::npos) nl = text.size();
    HtmlOut out;
    h.write_line(out, std::string_view(text).substr(pos, nl - pos));
    rows.emplace_back(out.text());
    pos = nl + 1;
  }
  return rows;
}

TEST(CppHighlight, WholeTextAgreesWithLineByLine) {
  std::mt19937 rng(777);
  const std::string alphabet = "abRuLU8x01.e+-'\"\\/*#<>&()  \t;_$\xc3\xa9\xff";
  for (int file = 0; file < 100; ++file) {
    std::vector<std::string> lines(12);
    std::string text;
    for (std::string& l : lines) {
      for (size_t n = rng() % 200; n > 0; --n) l += alphabet[rng() % alphabet.size()];
      text += l + "\n";
    }
    const std::vector<std::string> rows = highlight_text(text);
    EXPECT_EQ(rows, highlight(lines));
    // The masks made 16 bytes a step give the same rows as 32 (AVX2).
    cpp_highlight_narrow_for_testing = true;
    EXPECT_EQ(highlight_text(text), rows);
    cpp_highlight_narrow_for_testing = false;
  }
  // Identifiers, keywords and numbers across the words' edges.
  for (size_t pad = 0; pad < 70; ++pad) {
    const std::string line = std::string(pad, ' ') + "int abcdefghij_0123456789 = 0x7f; return a<b; // c";
    EXPECT_EQ(highlight_text(line + "\n" + line), highlight({line, line})) << pad;
  }
}

TEST(CppHighlight, EdgeCases) {
  // A raw string ends only at its delimiter on one line: neither )a" nor
  // a )ab at one line's end with the quote on the next closes it.
  std::vector<std::string> rows = highlight({"R\"ab(x)a\"", ")b\" )ab", "\" int", ")ab\" int"});
  EXPECT_EQ(rows[0], "<span class=\"s\">R&quot;ab(x)a&quot;</span>");
  EXPECT_EQ(rows[1], "<span class=\"s\">)b&quot; )ab</span>");
  EXPECT_EQ(rows[2], "<span class=\"s\">&quot; int</span>");
  EXPECT_EQ(rows[3], "<span class=\"s\">)ab&quot;</span> <span class=\"k\">int</span>");
  // A continued #define: the second line is code, not a directive.
  rows = highlight({"#define F(x) \\", "  if (x) return 1;"});
  EXPECT_EQ(rows[0], "<span class=\"p\">#define</span> F(x) \\");
  EXPECT_EQ(rows[1], "  <span class=\"k\">if</span> (x) <span class=\"k\">return</span> <span class=\"n\">1</span>;");
  // Digraphs are punctuation: %: is not a directive, <: :> <% %> escaped.
  EXPECT_EQ(one("%:include <x>"), "%:include &lt;x&gt;");
  EXPECT_EQ(one("a<:1:> <% %>"), "a&lt;:<span class=\"n\">1</span>:&gt; &lt;% %&gt;");
  // Unterminated at the end of the text: each row is closed.
  rows = highlight({"/* open", "still <open>"});
  EXPECT_EQ(rows[1], "<span class=\"c\">still &lt;open&gt;</span>");
  EXPECT_EQ(one("x = \"no end"), "x = <span class=\"s\">&quot;no end</span>");
  EXPECT_EQ(one("c = '"), "c = <span class=\"s\">&#39;</span>");
  EXPECT_EQ(one("R\"d(never closed"), "<span class=\"s\">R&quot;d(never closed</span>");
  // Bytes that are not UTF-8 become U+FFFD, in code, comments and strings alike.
  EXPECT_EQ(one("a\xff b"), "a\xEF\xBF\xBD b");
  EXPECT_EQ(one("/* \xc3 */"), "<span class=\"c\">/* \xEF\xBF\xBD */</span>");
  EXPECT_EQ(one("\"\xe2\x82\""), "<span class=\"s\">&quot;\xEF\xBF\xBD\xEF\xBF\xBD&quot;</span>");
  // Well-formed bidi controls (U+202E, U+2066) are kept as they are: the
  // page shows the source's bytes (the row's cell isolates them).
  EXPECT_EQ(one("x\xe2\x80\xae = 1;"), "x\xe2\x80\xae = <span class=\"n\">1</span>;");
  EXPECT_EQ(one("// \xe2\x81\xa6 }"), "<span class=\"c\">// \xe2\x81\xa6 }</span>");
}

TEST(CppHighlight, WhichFilesAreCOrCxx) {
  for (const char* p : {"a.c", "src/a.cc", "x.CPP", "inc/y.hpp", "z.h", "w.inl", "/usr/include/c++/12/vector", "m.ixx"})
    EXPECT_TRUE(is_c_family_source(p)) << p;
  for (const char* p : {"a.f90", "b.py", "c.s", "gen/d.y", "e.cc.in", "src.d/f.rs"})
    EXPECT_FALSE(is_c_family_source(p)) << p;
}

}  // namespace
}  // namespace covkit::report::html
