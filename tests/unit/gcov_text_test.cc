// report/gcov_text: the annotated source as gcov prints it, and extreme
// counts that must render without signed overflow (run under UBSan).
#include "report/gcov/gcov_text.h"

#include <gtest/gtest.h>

#include <cstdint>

#include "format/gcov_tags.h"
#include "gcov_image_builder.h"
#include "model/gcov_session.h"
#include "test_support.h"

namespace covkit::report {
namespace gcov_text_test {

using testing::GcovImageBuilder;
using testing::Layout;

std::string render(const std::string& dir, const std::string& arg, const TextOptions& o,
                   std::string* messages = nullptr) {
  std::string text;
  testing::in_directory(dir, [&] {
    model::GcovSession s(model::SessionOptions{"", o.branches, false, false, 1});
    s.add_object(model::load_object(arg, ""), arg);
    s.process_all_functions();
    s.add_line_counts(nullptr);
    for (uint32_t i = 0; i < s.source_count(); ++i) s.accumulate(i);
    for (uint32_t i = 0; i < s.source_count(); ++i) {
      auto r = render_gcov_text(s, i, o);
      text += r.text;
      if (messages) *messages += r.messages;
    }
  });
  return text;
}

TEST(GcovTextReal, KnownProgramPlain) {
  COVKIT_REQUIRE_PROGRAM(p, "gcc-12");
  std::string t = render(p.dir, "prog-p.gcda", TextOptions{});
  EXPECT_NE(t.find("        -:    0:Source:p.c\n"), std::string::npos) << t;
  EXPECT_NE(t.find("        -:    0:Graph:prog-p.gcno\n"), std::string::npos);
  EXPECT_NE(t.find("        -:    0:Data:prog-p.gcda\n"), std::string::npos);
  EXPECT_NE(t.find("        -:    0:Runs:1\n"), std::string::npos);
  EXPECT_NE(t.find("    #####:    1:static int never(int x) { return x + 1; }\n"), std::string::npos) << t;
  EXPECT_NE(t.find("       10:    2:static int sq(int x) { return x * x; }\n"), std::string::npos) << t;
  EXPECT_NE(t.find("       11:    8:  for (int i = 0; i < 10; i++)\n"), std::string::npos) << t;
  EXPECT_NE(t.find("       16:   10:  for (int i = 0; i < 3; i++) for (int j = 0; j < 4; j++) s++;\n"),
            std::string::npos)
      << t;
  EXPECT_NE(t.find("    #####:   12:    s += never(s);\n"), std::string::npos) << t;
  EXPECT_NE(t.find("        -:   14:}\n"), std::string::npos) << t;
}

TEST(GcovTextReal, KnownProgramBranches) {
  COVKIT_REQUIRE_PROGRAM(p, "gcc-12");
  TextOptions o;
  o.branches = true;
  std::string t = render(p.dir, "prog-p.gcda", o);
  EXPECT_NE(t.find("function sq called 10 returned 100% blocks executed 100%\n"), std::string::npos) << t;
  EXPECT_NE(t.find("function main called 1 returned 100% blocks executed 87%\n"), std::string::npos) << t;
  EXPECT_NE(t.find("function never called 0 returned 0% blocks executed 0%\n"), std::string::npos) << t;
  EXPECT_NE(t.find("branch  0 taken 91%\nbranch  1 taken 9% (fallthrough)\n"), std::string::npos) << t;
  EXPECT_NE(t.find("call    0 returned 100%\n"), std::string::npos) << t;
  EXPECT_NE(t.find("call    0 never executed\n"), std::string::npos) << t;
}

TEST(GcovTextReal, MissingSource) {
  COVKIT_REQUIRE_PROGRAM(p, "gcc-12");
  testing::TempDir t;
  testing::write_bytes(t / "prog-p.gcno", p.gcno);
  testing::write_bytes(t / "prog-p.gcda", p.gcda);
  std::string messages;
  std::string text = render(t.path(), "prog-p.gcda", TextOptions{}, &messages);
  EXPECT_EQ(messages, "Cannot open source file p.c\n");
  EXPECT_NE(text.find("        -:    0:Runs:1\n"), std::string::npos);
  EXPECT_EQ(text.find("    1:"), std::string::npos);  // no source, no lines
}

// A function ENTRY -> {2, 3} -> EXIT with a call in block 2 (fake arc) whose
// counters are `a` (0->2) and `b` (0->3), and the fake arc's own counter `c`.
void write_extreme(const std::string& dir, int64_t a, int64_t b, int64_t c) {
  constexpr uint32_t kFall = format::kArcFallthrough, kTree = format::kArcOnTree, kFake = format::kArcFake;
  GcovImageBuilder n(Layout::kGcc12);
  n.notes_header(42, "/d", true);
  n.function(1, 2, 3, "f", false, "s.c", 1, 1, 3, 1).blocks(5);
  n.arcs(0, {{2, kFall}, {3, 0}});
  n.arcs(2, {{4, kFall | kTree}, {1, kFake}});
  n.arcs(3, {{4, kTree}});
  n.arcs(4, {{1, kTree}});
  n.lines(2, {{"s.c", {1}}});
  n.lines(3, {{"s.c", {2}}});
  n.lines(4, {{"s.c", {3}}});
  GcovImageBuilder d(Layout::kGcc12);
  d.data_header(42).summary(1, 3).data_function(1, 2, 3).counters({a, b, c}).word(0);
  testing::write_bytes(dir + "/s.gcno", n.take());
  testing::write_bytes(dir + "/s.gcda", d.take());
  testing::write_text(dir + "/s.c", "a\nb\nc\n");
}

// gcov's arithmetic on such counts is two's complement; covkit must get the
// same digits without signed overflow (UBSan reports it in sanitizer builds):
// hotness (count * 2 > max), "call returned" (count - arc), "returned"
// (exit count - fake arcs).
TEST(GcovText, ExtremeCountsRenderWithoutOverflow) {
  const int64_t values[][3] = {{INT64_MAX, 1, INT64_MIN}, {INT64_MIN, INT64_MAX, 5}, {-1, INT64_MIN, INT64_MAX},
                               {INT64_MAX / 2 + 1, INT64_MAX / 2 + 1, -3}};
  for (const auto& v : values) {
    testing::TempDir t;
    write_extreme(t.path(), v[0], v[1], v[2]);
    TextOptions o;
    o.branches = o.all_blocks = o.unconditional = o.hotness = o.colors = o.human = true;
    std::string text = render(t.path(), "s.gcda", o);
    EXPECT_NE(text.find("function f called "), std::string::npos);
    o.counts = true;
    o.human = false;
    text = render(t.path(), "s.gcda", o);
    EXPECT_NE(text.find("call    0 returned "), std::string::npos) << text;
  }
}

TEST(GcovText, ColorsAndHotnessHeader) {
  testing::TempDir t;
  write_extreme(t.path(), 4, 1, 1);
  TextOptions o;
  o.colors = o.hotness = true;
  std::string text = render(t.path(), "s.gcda", o);
  EXPECT_EQ(text.rfind("        -:    0:Colorization: profile count: ", 0), 0u) << text;
  EXPECT_NE(text.find("Colorization: line numbers: hotness: "), std::string::npos);
}

}  // namespace
}  // namespace covkit::report
