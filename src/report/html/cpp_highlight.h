#pragma once
// Syntax highlighting of C and C++ for the source pages, done while the page
// is written (no script, nothing fetched). One pass over the text, each byte
// looked at a bounded number of times, so a 4,000-line file costs about as
// much as escaping it. Tokens become <span class="X"> inside the line's cell:
//   c comment   s string or character literal (raw strings too), #include's <name>
//   p preprocessor directive (#include, # define)   k keyword   n number
// A construct that spans lines (block comments, raw strings, continued
// strings and // comments) is closed at the end of each line and reopened on
// the next, so every row stays a well-formed fragment. Everything is escaped.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace covkit::report::html {

class HtmlOut;

// Whether a file's name says it is C or C++ (by extension; a name without
// one, like the standard library's <vector>, counts too).
bool is_c_family_source(std::string_view path);

// Tests set it to have the text's masks made 16 bytes a step even where the
// CPU has AVX2 (both ways must give the same masks).
extern bool cpp_highlight_narrow_for_testing;

class CppHighlighter {
 public:
  // Appends `line` (without its newline) highlighted; call once per line, in order.
  void append_line(std::string& out, std::string_view line);
  // A whole text, line by line: begin_text() with the text, then
  // write_line() with each of its lines (views into it), in order.
  void begin_text(std::string_view text);
  void write_line(HtmlOut& out, std::string_view line);

 private:
  enum class State { kCode, kBlockComment, kLineComment, kString, kRawString };

  // Each scans from `i`, writes what it consumed and returns where it stopped.
  // code() writes line[plain..i) as it is (blanks) before what it scans.
  size_t code(HtmlOut& out, std::string_view line, size_t plain, size_t i);
  size_t block_comment(HtmlOut& out, std::string_view line, size_t i, size_t search_from);
  size_t quoted(HtmlOut& out, std::string_view line, size_t i);
  size_t raw_string(HtmlOut& out, std::string_view line, size_t i);
  size_t literal(HtmlOut& out, std::string_view line, size_t start, size_t quote, bool raw);
  size_t directive(HtmlOut& out, std::string_view line, size_t i);

  State state_ = State::kCode;
  char quote_ = '"';        // kString: the closing quote
  std::string raw_end_;     // kRawString: ")delimiter\""
  bool continued_ = false;  // the previous line ended with a backslash
  // Masks of the text's bytes (begin_text), 64 a word, bit k of word w for
  // text_[64 * w + k]: code() finds each token's start and end with them
  // instead of looking at every byte; line_ is where the line is in text_.
  std::string_view text_;
  size_t line_ = 0;
  std::vector<uint64_t> word_;    // letters, digits, '_', '$', bytes >= 0x80
  std::vector<uint64_t> event_;   // those and / . " ' (where a token may start)
  std::vector<uint64_t> escape_;  // & < > and bytes >= 0x80 (html_escape.h)
  std::vector<uint64_t> blank_;   // ' ' '\t' '\f' '\v'
};

}  // namespace covkit::report::html
