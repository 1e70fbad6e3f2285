// model/gcov_session: gcov's reading, merging, solving and line counting of
// one object, its diagnostics and exit codes, and hostile inputs that must
// neither crash nor exhaust memory.
#include "model/gcov_session.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <sstream>

#include "format/gcov_tags.h"
#include "gcov_image_builder.h"
#include "report/gcov/gcov_messages.h"
#include "test_support.h"

namespace covkit::model {
namespace gcov_session_test {

using testing::GcovImageBuilder;
using testing::Layout;
using testing::TempDir;

constexpr uint32_t kFall = format::kArcFallthrough;
constexpr uint32_t kTree = format::kArcOnTree;

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

// --- file names ------------------------------------------------------------------

TEST(DeriveFileNames, FromTheArgument) {
  std::string notes, data;
  derive_file_names("src/p.c", "", notes, data);
  EXPECT_EQ(notes, "src/p.gcno");
  EXPECT_EQ(data, "src/p.gcda");
  derive_file_names("prog-p.gcda", "", notes, data);
  EXPECT_EQ(notes, "prog-p.gcno");
  derive_file_names("p", "", notes, data);
  EXPECT_EQ(notes, "p.gcno");
  derive_file_names("a.b/c", "", notes, data);  // no extension in the last component
  EXPECT_EQ(notes, "a.b/c.gcno");
  derive_file_names("x.tar.gz", "", notes, data);
  EXPECT_EQ(notes, "x.tar.gcno");
}

TEST(DeriveFileNames, ObjectDirectory) {
  TempDir t;
  std::string notes, data;
  derive_file_names("src/p.c", t.path(), notes, data);
  EXPECT_EQ(notes, t.path() + "/p.gcno");
  EXPECT_EQ(data, t.path() + "/p.gcda");
  derive_file_names("src/p.c", t.path() + "/", notes, data);
  EXPECT_EQ(notes, t.path() + "/p.gcno");
  // -o naming a file (not a directory): its name with the extension replaced.
  derive_file_names("src/p.c", "obj/q.o", notes, data);
  EXPECT_EQ(notes, "obj/q.gcno");
  EXPECT_EQ(data, "obj/q.gcda");
}

// --- the known program -------------------------------------------------------------

struct Outcome {
  std::vector<Diagnostic> diagnostics;
  std::string messages;  // as `covkit gcov` words them
  int rc = 0;            // gcov 12's status: the last one a diagnostic set
  std::vector<std::pair<std::string, CoverageSummary>> summaries;
};

// Runs one object through the session as `covkit gcov ARG` does (text mode),
// in directory `dir`; `inspect` sees the session before it is destroyed.
template <typename F>
Outcome run_session(const std::string& dir, const std::string& arg, F&& inspect, SessionOptions opts = {}) {
  Outcome o;
  testing::in_directory(dir, [&] {
    GcovSession s(opts);
    s.add_object(load_object(arg, ""), arg);
    s.process_all_functions();
    s.add_line_counts(&o.summaries);
    for (uint32_t i = 0; i < s.source_count(); ++i) s.accumulate(i);
    o.diagnostics = s.take_diagnostics();
    report::GcovMessages words;
    for (const Diagnostic& d : o.diagnostics) {
      o.messages += words.render(d);
      if (d.gcov_status()) o.rc = d.gcov_status();
    }
    inspect(s);
  });
  return o;
}

void check_known_program(const testing::CompiledProgram& p, int major) {
  auto o = run_session(p.dir, "prog-p.gcda", [&](GcovSession& s) {
    EXPECT_EQ(s.version().major, major);
    EXPECT_EQ(s.object_runs(), 1u);
    EXPECT_EQ(s.notes_name(), "prog-p.gcno");
    EXPECT_EQ(s.data_name(), "prog-p.gcda");
    ASSERT_TRUE(s.notes_cwd());
    EXPECT_EQ(*s.notes_cwd(), p.dir);
    EXPECT_TRUE(s.has_unexecuted_blocks());
    ASSERT_EQ(s.source_count(), 1u);
    EXPECT_EQ(s.sources().entries()[0].name, "p.c");
    const SourceCoverage& c = s.coverage(0);
    ASSERT_GE(c.lines.size(), 14u);
    // Line counts: the loops of kKnownProgram.
    const std::pair<uint32_t, int64_t> expected[] = {{1, 0},  {2, 10}, {4, 1},  {7, 1},  {8, 11},
                                                     {9, 10}, {10, 16}, {11, 1}, {12, 0}, {13, 1}};
    for (auto [ln, count] : expected) {
      EXPECT_TRUE(c.lines[ln].exists) << "line " << ln;
      EXPECT_EQ(c.lines[ln].count, count) << "line " << ln;
    }
    for (uint32_t ln : {3u, 5u, 6u, 14u}) EXPECT_TRUE(ln >= c.lines.size() || !c.lines[ln].exists) << "line " << ln;
    EXPECT_EQ(c.coverage.lines, 10);
    EXPECT_EQ(c.coverage.lines_executed, 8);
    EXPECT_EQ(c.maximum_count, 16u);
    ASSERT_EQ(c.functions.size(), 3u);
    ASSERT_EQ(s.functions().size(), 3u);
    EXPECT_EQ(s.functions()[0]->fn.name, "main");
    EXPECT_EQ(s.functions()[0]->blocks_executed, 13u);  // of 15: never() is not called
  });
  EXPECT_EQ(o.messages, "");
  EXPECT_EQ(o.rc, 0);
  ASSERT_EQ(o.summaries.size(), 3u);
  EXPECT_EQ(o.summaries[0].first, "main");
  EXPECT_EQ(o.summaries[0].second.lines, 8);
  EXPECT_EQ(o.summaries[0].second.lines_executed, 7);
  EXPECT_EQ(o.summaries[1].first, "sq");
  EXPECT_EQ(o.summaries[1].second.lines_executed, 1);
  EXPECT_EQ(o.summaries[2].first, "never");
  EXPECT_EQ(o.summaries[2].second.lines, 1);
  EXPECT_EQ(o.summaries[2].second.lines_executed, 0);
}

TEST(GcovSessionReal, KnownProgramGcc12) {
  COVKIT_REQUIRE_PROGRAM(p, "gcc-12");
  check_known_program(p, 12);
}

TEST(GcovSessionReal, KnownProgramGcc11) {
  COVKIT_REQUIRE_PROGRAM(p, "gcc-11");
  check_known_program(p, 11);
}

TEST(GcovSessionReal, BranchesOnLines) {
  COVKIT_REQUIRE_PROGRAM(p, "gcc-12");
  SessionOptions opts;
  opts.branches = true;
  run_session(
      p.dir, "prog-p.gcda",
      [](GcovSession& s) {
        ASSERT_EQ(s.source_count(), 1u);
        const SourceCoverage& c = s.coverage(0);
        ASSERT_GE(c.lines.size(), 9u);
        // for (i < 10): two branches, taken 10 and 1 times; the call on line 9.
        ASSERT_EQ(c.lines[8].branches.size(), 3u);  // block 2's arc and the condition's two
        int64_t taken = 0;
        for (const ArcRef& a : c.lines[8].branches) taken += a.arc->count;
        EXPECT_EQ(taken, 1 + 10 + 1);
        EXPECT_EQ(c.coverage.calls, 2);           // sq() on line 9, never() on line 12
        EXPECT_EQ(c.coverage.calls_executed, 1);  // only sq() ran
        EXPECT_EQ(c.coverage.branches, 8);  // gcov-12 -b: "Branches executed:100.00% of 8"
        EXPECT_EQ(c.coverage.branches_taken, 7);
      },
      opts);
}

// --- diagnostics and exit codes -----------------------------------------------------

struct Files {
  std::vector<uint8_t> gcno, gcda;
};

// One function "f" in s.c: ENTRY -> 2 -> EXIT, block 2 on `lines`; `runs` calls.
Files simple_pair(Layout layout, std::vector<uint32_t> lines = {1}, int64_t runs = 3,
                  const std::string& name = "f") {
  GcovImageBuilder n(layout);
  n.notes_header(42, "/d", true);
  n.function(1, 2, 3, name, false, "s.c", 1, 1, 2, 1).blocks(3);
  n.arcs(0, {{2, kFall}});
  n.arcs(2, {{1, kTree}});
  n.lines(2, {{"s.c", lines}});
  GcovImageBuilder d(layout);
  d.data_header(42).summary(1, uint32_t(runs)).data_function(1, 2, 3).counters({runs}).word(0);
  return {n.take(), d.take()};
}

Outcome run_files(const Files& f, SessionOptions opts = {}) {
  TempDir t;
  testing::write_bytes(t / "s.gcno", f.gcno);
  testing::write_bytes(t / "s.gcda", f.gcda);
  testing::write_text(t / "s.c", "int a;\nint b;\n");
  return run_session(t.path(), "s.gcda", [](GcovSession&) {}, opts);
}

TEST(GcovSession, SimplePairIsClean) {
  for (auto layout : {Layout::kGcc12, Layout::kGcc11}) {
    auto o = run_files(simple_pair(layout));
    EXPECT_EQ(o.messages, "");
    EXPECT_EQ(o.rc, 0);
  }
}

TEST(GcovSession, MissingNotesIsStatus1) {
  TempDir t;
  auto o = run_session(t.path(), "nope.gcda", [](GcovSession&) {});
  EXPECT_EQ(lines_of(o.messages)[0], "nope.gcno:cannot open notes file");
  EXPECT_EQ(o.rc, 1);
}

TEST(GcovSession, MissingDataAssumesNotExecuted) {
  Files f = simple_pair(Layout::kGcc12);
  TempDir t;
  testing::write_bytes(t / "s.gcno", f.gcno);
  auto o = run_session(t.path(), "s.gcda", [](GcovSession& s) {
    EXPECT_TRUE(s.no_data_file());
    ASSERT_EQ(s.source_count(), 1u);
    EXPECT_TRUE(s.coverage(0).lines[1].exists);
    EXPECT_EQ(s.coverage(0).lines[1].count, 0);
  });
  EXPECT_EQ(o.messages, "s.gcda:cannot open data file, assuming not executed\n");
  EXPECT_EQ(o.rc, 0);
}

TEST(GcovSession, NotANotesFileIsStatus2) {
  Files f = simple_pair(Layout::kGcc12);
  f.gcno = f.gcda;
  auto o = run_files(f);
  EXPECT_EQ(lines_of(o.messages)[0], "s.gcno:not a gcov notes file");
  EXPECT_NE(o.rc, 0);
}

TEST(GcovSession, NotADataFileIsStatus2) {
  Files f = simple_pair(Layout::kGcc12);
  f.gcda = f.gcno;
  auto o = run_files(f);
  EXPECT_EQ(o.messages, "s.gcda:not a gcov data file\n");
  EXPECT_EQ(o.rc, 2);
}

TEST(GcovSession, UnsupportedDataVersionIsStatus3) {
  Files f = simple_pair(Layout::kGcc12);
  GcovImageBuilder d(Layout::kGcc12);
  d.data_header_v(0x4235302a /* B50* */, 42);
  f.gcda = d.take();
  auto o = run_files(f);
  EXPECT_EQ(o.messages, "s.gcda:unsupported version 'B50*' (covkit reads GCC 8 to 14, and clang's '408*')\n");
  EXPECT_EQ(o.rc, 3);
}

TEST(GcovSession, OtherDataVersionIsStatus3) {
  Files f = simple_pair(Layout::kGcc12);
  GcovImageBuilder d(Layout::kGcc12);
  d.data_header_v(0x4232312a /* B21* */, 42).summary(1, 3).data_function(1, 2, 3).counters({3}).word(0);
  f.gcda = d.take();
  auto o = run_files(f);
  EXPECT_EQ(o.messages, "s.gcda:version 'B21*', prefer version 'B22*'\n");
  EXPECT_EQ(o.rc, 3);
}

TEST(GcovSession, StampMismatchIsStatus5) {
  Files f = simple_pair(Layout::kGcc12);
  f.gcda[8] ^= 1;
  auto o = run_files(f);
  EXPECT_EQ(o.messages, "s.gcda:stamp mismatch with notes file\n");
  EXPECT_EQ(o.rc, 5);
}

TEST(GcovSession, ChecksumMismatchIsAProfileMismatch) {
  Files f = simple_pair(Layout::kGcc12);
  GcovImageBuilder d(Layout::kGcc12);
  d.data_header(42).summary(1, 3).data_function(1, 2, 99).counters({3}).word(0);
  f.gcda = d.take();
  auto o = run_files(f);
  EXPECT_EQ(o.messages, "s.gcda:profile mismatch for 'f'\n");
  EXPECT_EQ(o.rc, 0);
}

TEST(GcovSession, CounterCountMismatchIsAProfileMismatch) {
  Files f = simple_pair(Layout::kGcc12);
  GcovImageBuilder d(Layout::kGcc12);
  d.data_header(42).summary(1, 3).data_function(1, 2, 3).counters({3, 4}).word(0);
  f.gcda = d.take();
  auto o = run_files(f);
  EXPECT_EQ(o.messages, "s.gcda:profile mismatch for 'f'\n");
}

TEST(GcovSession, CorruptNotesIsStatus4WithByteOffset) {
  Files f = simple_pair(Layout::kGcc12);
  f.gcno.resize(f.gcno.size() - 3);
  auto o = run_files(f);
  auto lines = lines_of(o.messages);
  ASSERT_FALSE(lines.empty());
  EXPECT_EQ(lines[0].rfind("s.gcno:corrupted at byte ", 0), 0u) << lines[0];
  EXPECT_EQ(o.rc, 4);
}

TEST(GcovSession, CorruptDataIsStatus4WithByteOffset) {
  Files f = simple_pair(Layout::kGcc12);
  f.gcda.pop_back();
  f.gcda.pop_back();
  auto o = run_files(f);
  auto lines = lines_of(o.messages);
  ASSERT_FALSE(lines.empty());
  EXPECT_EQ(lines.back().rfind("s.gcda:corrupted at byte ", 0), 0u) << lines.back();
  EXPECT_EQ(o.rc, 4);
}

TEST(GcovSession, SameObjectTwice) {
  Files f = simple_pair(Layout::kGcc12);
  TempDir t;
  testing::write_bytes(t / "s.gcno", f.gcno);
  testing::write_bytes(t / "s.gcda", f.gcda);
  testing::in_directory(t.path(), [&] {
    GcovSession s({});
    s.add_object(load_object("s.gcda", ""), "s.gcda");
    s.add_object(load_object("s.c", ""), "s.c");
    auto diagnostics = s.take_diagnostics();
    ASSERT_EQ(diagnostics.size(), 1u);
    EXPECT_EQ(diagnostics[0].kind, DiagnosticKind::kAlreadyProcessed);
    EXPECT_EQ(report::GcovMessages().render(diagnostics[0]), "'s.c' file is already processed\n");
  });
}

// --- hostile notes --------------------------------------------------------------------

// Every message is one line naming its file, even for names holding a newline.
void expect_one_line_messages(const std::string& messages) {
  for (const std::string& line : lines_of(messages))
    EXPECT_TRUE(line.rfind("s.gcno:", 0) == 0 || line.rfind("s.gcda:", 0) == 0)
        << "a message line that does not name its file: '" << line << "'\nall messages:\n"
        << messages;
}

TEST(GcovSessionHostile, FunctionNameWithNewlineKeepsMessagesOnOneLine) {
  // The function's counters do not match (profile mismatch), and it has no lines.
  Files f = simple_pair(Layout::kGcc12, {1}, 3, "evil\nname");
  GcovImageBuilder d(Layout::kGcc12);
  d.data_header(42).summary(1, 3).data_function(1, 2, 3).counters({3, 3}).word(0);
  f.gcda = d.take();
  auto o = run_files(f);
  EXPECT_NE(o.messages.find("profile mismatch"), std::string::npos);
  expect_one_line_messages(o.messages);
}

TEST(GcovSessionHostile, CorruptMessageForNameWithNewlineIsOneLine) {
  GcovImageBuilder n(Layout::kGcc12);
  n.notes_header(42, "/d", true);
  n.function(1, 2, 3, "evil\nname", false, "s.c", 1, 1, 2, 1).blocks(3);
  n.arcs(0, {{7, kFall}});  // destination out of range
  Files f{n.take(), simple_pair(Layout::kGcc12).gcda};
  auto o = run_files(f);
  EXPECT_NE(o.messages.find("corrupted at byte"), std::string::npos);
  expect_one_line_messages(o.messages);
  EXPECT_EQ(o.rc, 4);
}

// A line number of 2^31 (or 2^32-1) must not make the session allocate a
// line table of 2^31 entries (std::bad_alloc, or 128 GiB).
TEST(GcovSessionHostile, HugeLineNumberDoesNotExhaustMemory) {
  for (uint32_t line : {0x80000000u, 0xffffffffu}) {
    Files f = simple_pair(Layout::kGcc12, {1, line});
    Outcome o;
    EXPECT_NO_THROW(o = run_files(f)) << line;
    // The notes file is damaged there (status 4); the function read before
    // the damage is kept, without its lines.
    EXPECT_EQ(o.rc, 4) << line;
    EXPECT_EQ(o.messages, fmt::format("s.gcno:corrupted at byte 161: function 'f': line number {} beyond the limit "
                                      "of 8388608\ns.gcno:no lines for 'f'\n",
                                      line));
    ASSERT_EQ(o.diagnostics.size(), 2u);
    EXPECT_EQ(o.diagnostics[0].kind, DiagnosticKind::kNotesCorrupt);
    EXPECT_EQ(o.diagnostics[0].offset, 161u);
  }
}

// Functions sharing a first line form a group whose lines are kept per
// function, start_line..end_line: an end_line of 2^32-16 must not be allocated.
TEST(GcovSessionHostile, HugeGroupRangeDoesNotExhaustMemory) {
  GcovImageBuilder n(Layout::kGcc12);
  n.notes_header(42, "/d", true);
  GcovImageBuilder d(Layout::kGcc12);
  d.data_header(42).summary(1, 3);
  for (uint32_t ident : {1u, 2u}) {
    n.function(ident, 2, 3, "g" + std::to_string(ident), false, "s.c", 1, 1, 0xfffffff0u, 1).blocks(3);
    n.arcs(0, {{2, kFall}});
    n.arcs(2, {{1, kTree}});
    n.lines(2, {{"s.c", {1}}});
    d.data_function(ident, 2, 3).counters({3});
  }
  d.word(0);
  Outcome o;
  EXPECT_NO_THROW(o = run_files(Files{n.take(), d.take()}));
  EXPECT_EQ(o.rc, 4);
  EXPECT_EQ(o.messages,
            "s.gcno:corrupted at byte 35: function 'g1' spans lines 1 to 4294967280, beyond the limit of 8388608\n"
            "s.gcno:no functions found\n");
}

TEST(GcovSessionHostile, ExtremeCountersWrap) {
  GcovImageBuilder n(Layout::kGcc12);
  n.notes_header(42, "/d", true);
  // Blocks 2 and 3 on line 1, entered INT64_MAX times and once. (Block 4
  // is last: gcov never attaches the last block to a line.)
  n.function(1, 2, 3, "f", false, "s.c", 1, 1, 2, 1).blocks(5);
  n.arcs(0, {{2, kFall}, {3, 0}});
  n.arcs(2, {{4, kTree}});
  n.arcs(3, {{4, kTree}});
  n.arcs(4, {{1, kTree}});
  n.lines(2, {{"s.c", {1}}});
  n.lines(3, {{"s.c", {1}}});
  GcovImageBuilder d(Layout::kGcc12);
  d.data_header(42).summary(1, 3).data_function(1, 2, 3).counters({INT64_MAX, 1}).word(0);
  TempDir t;
  testing::write_bytes(t / "s.gcno", n.take());
  testing::write_bytes(t / "s.gcda", d.take());
  testing::write_text(t / "s.c", "int a;\n");
  SessionOptions opts;
  opts.branches = true;
  auto o = run_session(
      t.path(), "s.gcda",
      [](GcovSession& s) {
        EXPECT_EQ(s.coverage(0).lines[1].count, INT64_MIN);  // INT64_MAX + 1, wrapped as gcov's arithmetic does
      },
      opts);
  EXPECT_EQ(o.rc, 0);
}

}  // namespace
}  // namespace covkit::model
