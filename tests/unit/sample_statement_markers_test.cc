// sample/statement_markers through load_line_table and analyze_recording:
// gcc -O2 leaves a row of no length for an `if`'s statement at the join
// after it (where the next line's code begins); running the join must not
// cover that statement, while a statement without code of its own (an
// assert() under NDEBUG) is covered when its address runs, and a
// function's opening line when its entry does.
#include "sample/line_table.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <initializer_list>
#include <string_view>

#include "sample/binary_image.h"
#include "sample_test_programs.h"

namespace covkit::sample {
namespace sample_statement_markers_test {

constexpr const char* kProgram =
    "#include <stdio.h>\n"                                                      // 1
    "#include <stdlib.h>\n"                                                     // 2
    "#include <assert.h>\n"                                                     // 3
    "struct prefs { int workers; int adaptive; };\n"                            // 4
    "#define THROW(msg) { fprintf(stderr, \"%s\\n\", msg); exit(1); }\n"        // 5
    "__attribute__((noinline)) void set_adaptive(struct prefs *p, int a) {\n"   // 6
    "  if (a > 0 && p->workers == 0)\n"                                         // 7
    "    THROW(\"adaptive mode needs threads\");\n"                             // 8
    "  p->adaptive = a;\n"                                                      // 9
    "}\n"                                                                       // 10
    "__attribute__((noinline)) int scaled(int x) {\n"                           // 11
    "  int y = atoi(\"7\") + x;\n"                                              // 12
    "  assert(y > 0);\n"                                                        // 13
    "  return y * 3 + 1;\n"                                                     // 14
    "}\n"                                                                       // 15
    "int main(int argc, char **argv) {\n"                                       // 16
    "  struct prefs p = {argc - 1, 0};\n"                                       // 17
    "  (void)argv;\n"                                                           // 18
    "  set_adaptive(&p, argc - 1);\n"                                           // 19
    "  printf(\"%d %d\\n\", p.adaptive, scaled(argc));\n"                       // 20
    "  return 0;\n"                                                             // 21
    "}\n";                                                                      // 22

// `scaled` is needed on one path only: gcc -O2 computes it after the
// branch, and leaves line 6's marker where the statement stood, before it.
constexpr const char* kSunkProgram =
    "#include <stdio.h>\n"                                                       // 1
    "#include <stdlib.h>\n"                                                      // 2
    "__attribute__((noinline)) void use(long v) { printf(\"%ld\\n\", v); }\n"    // 3
    "__attribute__((noinline)) int sunk(const char *s) {\n"                      // 4
    "  long base = atol(s);\n"                                                   // 5
    "  long scaled = base * base * 7 + base / 3;\n"                              // 6
    "  if (base > 5) return 1;\n"                                                // 7
    "  use(scaled);\n"                                                           // 8
    "  return 0;\n"                                                              // 9
    "}\n"                                                                        // 10
    "int main(int argc, char **argv) {\n"                                        // 11
    "  printf(\"%d\\n\", sunk(argc > 1 ? argv[1] : \"9\"));\n"                   // 12
    "  return 0;\n"                                                              // 13
    "}\n";                                                                       // 14

// gawk's interpreter (interpret.h:266, Op_push): the `break;` after an
// inner switch is two blocks at -O0, the jump after the default's call
// (its is_stmt row) and the join of the inner cases' breaks (a row of
// discriminator 1 that is no statement, right after it). Only the join
// runs.
constexpr const char* kJoinProgram =
    "#include <stdio.h>\n"                                                              // 1
    "#include <stdlib.h>\n"                                                             // 2
    "__attribute__((noinline)) void fail(const char *m, int n) { fprintf(stderr, \"%s %d\\n\", m, n); exit(1); }\n"  // 3
    "int stack[64], sp;\n"                                                              // 4
    "__attribute__((noinline)) int run(const int *code) {\n"                            // 5
    "  int pc = 0, op;\n"                                                               // 6
    "top:\n"                                                                            // 7
    "  op = code[pc];\n"                                                                // 8
    "  switch (op) {\n"                                                                 // 9
    "  case 0:\n"                                                                       // 10
    "  {\n"                                                                             // 11
    "    int k = code[pc + 1];\n"                                                       // 12
    "    switch (k) {\n"                                                                // 13
    "    case 1:\n"                                                                     // 14
    "      stack[sp++] = 10;\n"                                                         // 15
    "      break;\n"                                                                    // 16
    "    case 2:\n"                                                                     // 17
    "      if (sp > 0)\n"                                                               // 18
    "        stack[sp++] = 20;\n"                                                       // 19
    "      else\n"                                                                      // 20
    "        fail(\"empty\", k);\n"                                                     // 21
    "      break;\n"                                                                    // 22
    "    default:\n"                                                                    // 23
    "      fail(\"unexpected\", k);\n"                                                  // 24
    "    }\n"                                                                           // 25
    "  }\n"                                                                             // 26
    "    break;\n"                                                                      // 27
    "  case 1:\n"                                                                       // 28
    "    return stack[sp - 1];\n"                                                       // 29
    "  }\n"                                                                             // 30
    "  pc += 2;\n"                                                                      // 31
    "  goto top;\n"                                                                     // 32
    "}\n"                                                                               // 33
    "int main(void) {\n"                                                                // 34
    "  const int code[] = {0, 1, 0, 2, 1, 0};\n"                                        // 35
    "  printf(\"%d\\n\", run(code));\n"                                                // 36
    "  return 0;\n"                                                                     // 37
    "}\n";                                                                              // 38

using Built = test_programs::BuiltProgram;

bool build(Built& b) { return test_programs::build_program(b, kProgram, "-O2 -g -DNDEBUG -no-pie -fno-pie", "m.c"); }

// A built program's line table, and a recording by hand of it with a hit
// at the entry of each of `functions`.
struct Recorded {
  LineTable table;
  format::SampleRecording rec;
};

void record_entries(const Built& b, std::initializer_list<std::string_view> functions, Recorded& out) {
  auto img = load_binary_image(b.exe);
  ASSERT_TRUE(img) << img.error().message;
  auto table = load_line_table(b.exe);
  ASSERT_TRUE(table) << table.error().message;
  out.table = std::move(*table);
  out.rec = test_programs::identity_recording(*img, b.exe);
  for (const FunctionSymbol& f : img->functions())
    if (std::find(functions.begin(), functions.end(), f.name) != functions.end()) out.rec.hits.push_back({0, f.address});
  ASSERT_EQ(out.rec.hits.size(), functions.size());
}

std::vector<LineRange> rows_of(const LineTable& t, uint32_t line) {
  std::vector<LineRange> out;
  for (const LineRange& r : t.ranges)
    if (r.line == line && t.files[r.file].ends_with("/m.c")) out.push_back(r);
  return out;
}

TEST(StatementMarkers, JoinAfterAStatementDoesNotCoverIt) {
  Built b;
  if (!build(b)) GTEST_SKIP() << b.why;
  auto table = load_line_table(b.exe);
  ASSERT_TRUE(table) << table.error().message;
  // Line 8's marker sits where line 9's code begins; its own code (the
  // fprintf and exit) is elsewhere in set_adaptive.
  const std::vector<LineRange> eight = rows_of(*table, 8), nine = rows_of(*table, 9);
  ASSERT_FALSE(nine.empty());
  bool join_marker = false, own_code = false;
  for (const LineRange& r : eight) {
    const bool at_nine = std::any_of(nine.begin(), nine.end(), [&](const LineRange& n) { return n.lo == r.lo; });
    if (at_nine) {
      EXPECT_FALSE(r.covers) << std::hex << r.lo;
      join_marker = true;
    } else if (r.covers) {
      own_code = true;
    }
  }
  EXPECT_TRUE(join_marker) << "gcc-12 -O2 left no row of line 8 at line 9's code: the case is not exercised";
  EXPECT_TRUE(own_code);
  // The assert has no code under NDEBUG: its rows cover. So do the rows
  // of the functions' opening lines.
  for (uint32_t line : {6u, 11u, 13u, 16u}) {
    ASSERT_FALSE(rows_of(*table, line).empty()) << line;
    for (const LineRange& r : rows_of(*table, line)) EXPECT_TRUE(r.covers) << "line " << line;
  }
}

TEST(StatementMarkers, ProgramRunWithoutTheThrowCoversNotItsLine) {
  Built b;
  if (!build(b)) GTEST_SKIP() << b.why;
  // What `prog` (argc 1) runs: every function's entry, the join of
  // set_adaptive (the first instruction of line 9), not the THROW, and
  // scaled() after its call of atoi (where line 13's marker sits).
  Recorded p;
  ASSERT_NO_FATAL_FAILURE(record_entries(b, {"main", "set_adaptive", "scaled"}, p));
  format::SampleRecording& r = p.rec;
  for (const LineRange& l : rows_of(p.table, 9))
    if (l.covers) r.hits.push_back({0, l.lo});
  for (const LineRange& l : rows_of(p.table, 13)) r.hits.push_back({0, l.lo});

  std::string error;
  const auto lines = test_programs::analyzed_lines(r, b, "m.c", error);
  ASSERT_TRUE(error.empty()) << error;
  auto count = [&](uint32_t line) { return test_programs::count_of(lines, line); };
  EXPECT_GT(count(7), 0);
  EXPECT_EQ(count(8), 0);  // was 1 before markers were told apart
  EXPECT_GT(count(9), 0);
  EXPECT_GT(count(13), 0);  // the assert: no code, its marker ran
  EXPECT_GT(count(14), 0);
}

// The sunk statement ran where its marker stands, though its code (after
// the branch) did not: the marker covers it, as gcov counts it.
TEST(StatementMarkers, StatementSunkPastABranchRanAtItsMarker) {
  Built b;
  if (!test_programs::build_program(b, kSunkProgram, "-O2 -g -no-pie -fno-pie", "m.c")) GTEST_SKIP() << b.why;
  Recorded p;
  ASSERT_NO_FATAL_FAILURE(record_entries(b, {"main", "sunk"}, p));
  format::SampleRecording& r = p.rec;
  // sunk("9") returns 1: what runs after atol is the block of the test,
  // where line 6's marker is, never the block computing `scaled`.
  bool marker = false;
  for (const LineRange& l : rows_of(p.table, 6))
    if (!l.covers) {
      r.hits.push_back({0, l.lo});
      marker = true;
    }
  ASSERT_TRUE(marker) << "gcc-12 -O2 did not sink line 6: the case is not exercised";

  std::string error;
  const auto lines = test_programs::analyzed_lines(r, b, "m.c", error);
  ASSERT_TRUE(error.empty()) << error;
  EXPECT_GT(test_programs::count_of(lines, 6), 0);
  EXPECT_EQ(test_programs::count_of(lines, 8), 0);  // listed, not run
}

// Before LineRange::continues, the join's row counted as code moved away
// from line 27's statement: the line was missed though its join ran
// (gawk's workload: interpret.h:266, run 250,866 times by gcov's count).
TEST(StatementMarkers, DiscriminatorRowAfterItsStatementIsItsCode) {
  Built b;
  if (!test_programs::build_program(b, kJoinProgram, "-O0 -g -no-pie -fno-pie", "m.c")) GTEST_SKIP() << b.why;
  Recorded p;
  ASSERT_NO_FATAL_FAILURE(record_entries(b, {"main", "run"}, p));
  const std::vector<LineRange> rows = rows_of(p.table, 27);
  const LineRange* join = nullptr;
  for (const LineRange& r : rows)
    if (!r.is_stmt && !r.point) join = &r;
  ASSERT_TRUE(join) << "gcc-12 -O0 gave line 27 no row of discriminator 1: the case is not exercised";
  EXPECT_TRUE(join->continues);
  for (const LineRange& r : rows) EXPECT_TRUE(!r.is_stmt || !r.continues) << std::hex << r.lo;
  // What runs of line 27: its join only (the breaks of lines 16 and 22),
  // not the jump after line 24's call.
  format::SampleRecording& r = p.rec;
  r.hits.push_back({0, join->lo});
  for (uint32_t line : {15u, 19u, 29u})
    for (const LineRange& l : rows_of(p.table, line))
      if (l.is_stmt) r.hits.push_back({0, l.lo});

  std::string error;
  const auto lines = test_programs::analyzed_lines(r, b, "m.c", error);
  ASSERT_TRUE(error.empty()) << error;
  EXPECT_GT(test_programs::count_of(lines, 27), 0);  // was 0
  EXPECT_EQ(test_programs::count_of(lines, 24), 0);
  EXPECT_EQ(test_programs::count_of(lines, 21), 0);
}

}  // namespace sample_statement_markers_test
}  // namespace covkit::sample
