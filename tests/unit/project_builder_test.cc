// model/project_builder: objects (synthesized .gcno/.gcda images and a real
// gcc-12 build) to the project model: line counts, functions, branches,
// never-run objects, several data files of one notes file, suspicious
// counters, filters and paths.
#include "model/project_builder.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <atomic>
#include <string>
#include <vector>

#include "format/gcov_tags.h"
#include "gcov_image_builder.h"
#include "format/gcda_reader.h"
#include "report/object_warnings.h"
#include "test_support.h"

namespace covkit::model {
namespace project_builder_test {

using testing::GcovImageBuilder;
using testing::Layout;
using testing::TempDir;

constexpr uint32_t kFall = format::kArcFallthrough;
constexpr uint32_t kTree = format::kArcOnTree;

// s.c:   f(): block 2 on lines 1-2 ends in a two-way branch to block 3
//        (line 3) or block 4 (line 4); every arc is instrumented, in notes
//        order: 0->2, 2->3, 2->4, 3->EXIT, 4->EXIT.
// h.h:   g(): block 2 on lines 10-11, one instrumented arc ENTRY->2.
std::vector<uint8_t> notes_image(const std::string& cwd) {
  GcovImageBuilder n(Layout::kGcc12);
  n.notes_header(42, cwd, true);
  n.function(1, 2, 3, "f", false, "s.c", 1, 1, 5, 1).blocks(5);
  n.arcs(0, {{2, kFall}});
  n.arcs(2, {{3, kFall}, {4, 0}});
  n.arcs(3, {{1, 0}});
  n.arcs(4, {{1, 0}});
  n.lines(2, {{"s.c", {1, 2}}});
  n.lines(3, {{"s.c", {3}}});
  n.lines(4, {{"s.c", {4}}});
  n.function(4, 5, 6, "g", false, "h.h", 10, 1, 11, 1).blocks(3);
  n.arcs(0, {{2, kFall}});
  n.arcs(2, {{1, kTree}});
  n.lines(2, {{"h.h", {10, 11}}});
  return n.take();
}

std::vector<uint8_t> data_image(const std::vector<int64_t>& f_counters, int64_t g_runs) {
  GcovImageBuilder d(Layout::kGcc12);
  d.data_header(42).summary(1, 5);
  d.data_function(1, 2, 3).counters(f_counters);
  d.data_function(4, 5, 6).counters({g_runs});
  d.word(0);
  return d.take();
}

struct Tree {
  TempDir dir;
  std::string notes, data;
  Tree() : notes(dir / "s.gcno"), data(dir / "s.gcda") {
    EXPECT_TRUE(testing::write_bytes(notes, notes_image(dir.path())));
  }
  void write_data(const std::string& path, const std::vector<int64_t>& f, int64_t g) {
    EXPECT_TRUE(testing::write_bytes(path, data_image(f, g)));
  }
};

BuildResult build(const std::vector<format::ObjectFiles>& objects, const std::string& root,
                  const PathFilter& filter = PathFilter({}, {}, false)) {
  SourcePathRules paths(root, "", {});
  BuildOptions opts;
  opts.threads = 2;
  return build_project(objects, paths, filter, opts);
}

struct LineSummary {
  uint32_t number;
  int64_t count;
  std::vector<int64_t> branches;
  bool operator==(const LineSummary&) const = default;
};

std::ostream& operator<<(std::ostream& os, const LineSummary& l) {
  os << "{" << l.number << ", " << l.count << ", [";
  for (int64_t b : l.branches) os << b << " ";
  return os << "]}";
}

std::vector<LineSummary> summarize(const FileCov& f) {
  std::vector<LineSummary> out;
  for (const LineCov& l : f.lines) {
    LineSummary s{l.number, l.count, {}};
    for (const BranchCov& b : l.branches) s.branches.push_back(b.count);
    out.push_back(s);
  }
  return out;
}

// The diagnostics as `covkit report` words them.
std::vector<std::string> messages(const BuildResult& r) {
  std::vector<std::string> out;
  for (const Diagnostic& d : r.diagnostics) out.push_back(report::object_warning(d));
  return out;
}

TEST(BuildProject, LinesFunctionsAndBranches) {
  Tree t;
  t.write_data(t.data, {5, 3, 2, 3, 2}, 7);
  BuildResult r = build({{t.notes, t.data}}, t.dir.path());
  EXPECT_TRUE(messages(r).empty()) << messages(r)[0];
  EXPECT_EQ(r.objects_failed, 0u);
  ASSERT_EQ(r.project.files.size(), 2u);
  const FileCov& h = r.project.files[0];  // sorted by path
  const FileCov& s = r.project.files[1];
  EXPECT_EQ(h.path, "h.h");
  EXPECT_EQ(h.absolute_path, t.dir / "h.h");
  EXPECT_EQ(s.path, "s.c");
  EXPECT_EQ(s.absolute_path, t.dir / "s.c");

  const std::vector<LineSummary> s_lines = {{1, 5, {}}, {2, 5, {3, 2}}, {3, 3, {}}, {4, 2, {}}};
  EXPECT_EQ(summarize(s), s_lines);
  for (const BranchCov& b : s.lines[1].branches) {
    EXPECT_TRUE(b.executed);
    EXPECT_FALSE(b.is_throw);
    EXPECT_FALSE(b.unreachable);
  }
  EXPECT_TRUE(s.lines[1].branches[0].fallthrough);
  EXPECT_FALSE(s.lines[1].branches[1].fallthrough);
  ASSERT_EQ(s.functions.size(), 1u);
  EXPECT_EQ(s.functions[0].name, "f");
  EXPECT_EQ(s.functions[0].demangled, "f");
  EXPECT_EQ(s.functions[0].start_line, 1u);
  EXPECT_EQ(s.functions[0].end_line, 5u);
  EXPECT_EQ(s.functions[0].execution_count, 5);
  EXPECT_EQ(s.functions[0].blocks, 3u);
  EXPECT_EQ(s.functions[0].blocks_executed, 3u);

  const std::vector<LineSummary> h_lines = {{10, 7, {}}, {11, 7, {}}};
  EXPECT_EQ(summarize(h), h_lines);
  ASSERT_EQ(h.functions.size(), 1u);
  EXPECT_EQ(h.functions[0].name, "g");
  EXPECT_EQ(h.functions[0].execution_count, 7);

  Totals tot = totals(r.project);
  EXPECT_EQ(tot.lines, 6);
  EXPECT_EQ(tot.lines_covered, 6);
  EXPECT_EQ(tot.functions, 2);
  EXPECT_EQ(tot.functions_covered, 2);
  EXPECT_EQ(tot.branches, 2);
  EXPECT_EQ(tot.branches_covered, 2);
}

TEST(BuildProject, NotTakenBranchAndUncalledFunction) {
  Tree t;
  t.write_data(t.data, {4, 4, 0, 4, 0}, 0);
  BuildResult r = build({{t.notes, t.data}}, t.dir.path());
  EXPECT_TRUE(messages(r).empty()) << messages(r)[0];
  ASSERT_EQ(r.project.files.size(), 2u);
  const std::vector<LineSummary> s_lines = {{1, 4, {}}, {2, 4, {4, 0}}, {3, 4, {}}, {4, 0, {}}};
  EXPECT_EQ(summarize(r.project.files[1]), s_lines);
  EXPECT_TRUE(r.project.files[1].lines[1].branches[1].executed);  // the line ran: "0", not "-"
  // As gcov-12 counts them (checked on these images): blocks by index 1..n-2,
  // so EXIT (block 1, ran) counts and the last block (4, did not run) does not.
  EXPECT_EQ(r.project.files[1].functions[0].blocks_executed, 3u);
  Totals tot = totals(r.project);
  EXPECT_EQ(tot.lines, 6);
  EXPECT_EQ(tot.lines_covered, 3);
  EXPECT_EQ(tot.functions, 2);
  EXPECT_EQ(tot.functions_covered, 1);
  EXPECT_EQ(tot.branches, 2);
  EXPECT_EQ(tot.branches_covered, 1);
}

TEST(BuildProject, NeverRunObjectCountsZero) {
  Tree t;  // no data file
  BuildResult r = build({{t.notes, ""}}, t.dir.path());
  EXPECT_TRUE(messages(r).empty()) << messages(r)[0];  // a missing data file is not news here
  EXPECT_EQ(r.objects_failed, 0u);
  ASSERT_EQ(r.project.files.size(), 2u);
  const std::vector<LineSummary> s_lines = {{1, 0, {}}, {2, 0, {0, 0}}, {3, 0, {}}, {4, 0, {}}};
  EXPECT_EQ(summarize(r.project.files[1]), s_lines);
  for (const BranchCov& b : r.project.files[1].lines[1].branches) EXPECT_FALSE(b.executed);  // "-"
  EXPECT_EQ(r.project.files[1].functions[0].execution_count, 0);
  Totals tot = totals(r.project);
  EXPECT_EQ(tot.lines, 6);
  EXPECT_EQ(tot.lines_covered, 0);
  EXPECT_EQ(tot.functions, 2);
  EXPECT_EQ(tot.functions_covered, 0);
  EXPECT_EQ(tot.branches, 2);
  EXPECT_EQ(tot.branches_covered, 0);
}

TEST(BuildProject, TwoDataFilesOfOneNotesFileAddUp) {
  Tree t;
  TempDir other;
  t.write_data(t.data, {5, 3, 2, 3, 2}, 7);
  t.write_data(other / "s.gcda", {1, 1, 0, 1, 0}, 2);
  BuildResult r = build({{t.notes, t.data}, {t.notes, other / "s.gcda"}}, t.dir.path());
  EXPECT_TRUE(messages(r).empty()) << messages(r)[0];
  ASSERT_EQ(r.project.files.size(), 2u);
  const std::vector<LineSummary> s_lines = {{1, 6, {}}, {2, 6, {4, 2}}, {3, 4, {}}, {4, 2, {}}};
  EXPECT_EQ(summarize(r.project.files[1]), s_lines);
  EXPECT_EQ(r.project.files[1].functions[0].execution_count, 6);
  const std::vector<LineSummary> h_lines = {{10, 9, {}}, {11, 9, {}}};
  EXPECT_EQ(summarize(r.project.files[0]), h_lines);
  EXPECT_EQ(r.project.files[0].functions[0].execution_count, 9);
  Totals tot = totals(r.project);
  EXPECT_EQ(tot.lines, 6);  // the same lines, counted once
  EXPECT_EQ(tot.functions, 2);
  EXPECT_EQ(tot.branches, 2);
}

TEST(BuildProject, NeverRunPlusRunIsTheRun) {
  Tree t;
  t.write_data(t.data, {5, 3, 2, 3, 2}, 7);
  BuildResult r = build({{t.notes, ""}, {t.notes, t.data}}, t.dir.path());
  ASSERT_EQ(r.project.files.size(), 2u);
  const std::vector<LineSummary> s_lines = {{1, 5, {}}, {2, 5, {3, 2}}, {3, 3, {}}, {4, 2, {}}};
  EXPECT_EQ(summarize(r.project.files[1]), s_lines);
  for (const BranchCov& b : r.project.files[1].lines[1].branches) EXPECT_TRUE(b.executed);
}

TEST(BuildProject, NegativeCounterIsReportedAndReadAsZero) {
  Tree t;
  t.write_data(t.data, {5, 3, 2, 3, 2}, -4);  // g's only counter
  BuildResult r = build({{t.notes, t.data}}, t.dir.path());
  ASSERT_EQ(messages(r).size(), 1u);
  EXPECT_EQ(messages(r)[0], t.data +
                               ": function g (line 10): suspicious counter value -4 (negative: the counts do not add up, "
                               "as when threads race on them (build with -fprofile-update=atomic) or a fork()ed "
                               "child writes its own, begun mid-function, at its exec or exit)");
  ASSERT_EQ(r.project.files.size(), 2u);
  const std::vector<LineSummary> h_lines = {{10, 0, {}}, {11, 0, {}}};
  EXPECT_EQ(summarize(r.project.files[0]), h_lines);
  EXPECT_EQ(r.project.files[0].functions[0].execution_count, 0);
  // The other function is untouched.
  EXPECT_EQ(r.project.files[1].functions[0].execution_count, 5);
  Totals tot = totals(r.project);
  EXPECT_EQ(tot.lines_covered, 4);
  EXPECT_EQ(tot.functions_covered, 1);
}

TEST(BuildProject, NegativeBranchCounterIsReadAsZero) {
  Tree t;
  t.write_data(t.data, {5, 7, -2, 7, -2}, 1);
  BuildResult r = build({{t.notes, t.data}}, t.dir.path());
  ASSERT_EQ(messages(r).size(), 1u);
  EXPECT_EQ(messages(r)[0], t.data +
                               ": function f (line 1): suspicious counter value -2 (negative: the counts do not add up, "
                               "as when threads race on them (build with -fprofile-update=atomic) or a fork()ed "
                               "child writes its own, begun mid-function, at its exec or exit)");
  const std::vector<LineSummary> s_lines = {{1, 5, {}}, {2, 5, {7, 0}}, {3, 7, {}}, {4, 0, {}}};
  EXPECT_EQ(summarize(r.project.files[1]), s_lines);
}

TEST(BuildProject, HugeCounterIsReported) {
  Tree t;
  const int64_t huge = int64_t(1) << 57;
  t.write_data(t.data, {5, 3, 2, 3, 2}, huge);
  BuildResult r = build({{t.notes, t.data}}, t.dir.path());
  ASSERT_EQ(messages(r).size(), 1u);
  EXPECT_EQ(messages(r)[0], t.data + ": function g (line 10): suspicious counter value 144115188075855872 (too "
                                    "large to be real)");
  EXPECT_EQ(r.project.files[0].lines[0].count, huge);  // reported, still counted
}

// Counts in memory (a live snapshot) give the model the file would give; the
// data path then only names them (nothing is read from it).
TEST(BuildProject, CountsInMemoryEqualTheFile) {
  Tree t;
  t.write_data(t.data, {5, 3, 2, 3, 2}, 7);
  BuildResult from_file = build({{t.notes, t.data}}, t.dir.path());
  auto parsed = format::read_data(testing::read_bytes(t.data));
  ASSERT_TRUE(parsed);
  format::ObjectFiles in_memory{t.notes, t.dir / "nowhere/s.gcda",
                                std::make_shared<const format::DataFile>(std::move(*parsed))};
  BuildResult from_memory = build({in_memory}, t.dir.path());
  EXPECT_TRUE(messages(from_memory).empty());
  ASSERT_EQ(from_memory.project.files.size(), from_file.project.files.size());
  for (size_t i = 0; i < from_file.project.files.size(); ++i)
    EXPECT_EQ(summarize(from_memory.project.files[i]), summarize(from_file.project.files[i])) << i;
  EXPECT_EQ(totals(from_memory.project).lines_covered, totals(from_file.project).lines_covered);
}

TEST(BuildProject, FilterDropsSources) {
  Tree t;
  t.write_data(t.data, {5, 3, 2, 3, 2}, 7);
  BuildResult r = build({{t.notes, t.data}}, t.dir.path(), PathFilter({}, {R"(\.h$)"}, false));
  ASSERT_EQ(r.project.files.size(), 1u);
  EXPECT_EQ(r.project.files[0].path, "s.c");
  EXPECT_EQ(totals(r.project).functions, 1);
  BuildResult only_h = build({{t.notes, t.data}}, t.dir.path(), PathFilter({"^h"}, {}, false));
  ASSERT_EQ(only_h.project.files.size(), 1u);
  EXPECT_EQ(only_h.project.files[0].path, "h.h");
}

TEST(BuildProject, PathsFollowRootAndPathMap) {
  Tree t;
  t.write_data(t.data, {5, 3, 2, 3, 2}, 7);
  // A root elsewhere: absolute names.
  BuildResult r = build({{t.notes, t.data}}, "/nonexistent-root");
  ASSERT_EQ(r.project.files.size(), 2u);
  EXPECT_EQ(r.project.files[1].path, t.dir / "s.c");
  // The compile directory mapped to a new place, and the root there.
  SourcePathRules paths("/moved", "", {{t.dir.path(), "/moved/tree"}});
  BuildResult m = build_project({{t.notes, t.data}}, paths, PathFilter({}, {}, false), {});
  ASSERT_EQ(m.project.files.size(), 2u);
  EXPECT_EQ(m.project.files[0].path, "tree/h.h");
  EXPECT_EQ(m.project.files[0].absolute_path, "/moved/tree/h.h");
  EXPECT_EQ(m.project.files[1].path, "tree/s.c");
}

TEST(BuildProject, UnreadableNotesFailsTheObject) {
  Tree t;
  TempDir bad;
  testing::write_text(bad / "x.gcno", "this is not a notes file");
  t.write_data(t.data, {5, 3, 2, 3, 2}, 7);
  BuildResult r = build({{bad / "x.gcno", ""}, {t.notes, t.data}}, t.dir.path());
  EXPECT_EQ(r.objects_failed, 1u);
  ASSERT_FALSE(messages(r).empty());
  EXPECT_EQ(messages(r)[0], bad / "x.gcno" + ":not a gcov notes file");
  EXPECT_EQ(r.project.files.size(), 2u);  // the good object is still read
  EXPECT_EQ(r.objects_damaged, 1u);
}

// A data file that exists but cannot be read is not an object that never
// ran: it is said, and the object counts as damaged (zero counts).
TEST(BuildProject, UnreadableDataIsDamageNotSilence) {
  Tree t;
  const std::string fifo = t.dir / "fifo.gcda";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  BuildResult r = build({{t.notes, fifo}}, t.dir.path());
  EXPECT_EQ(r.objects_failed, 0u);
  EXPECT_EQ(r.objects_damaged, 1u);
  ASSERT_EQ(messages(r).size(), 1u);
  EXPECT_EQ(messages(r)[0], fifo + ": cannot read the data file (not a regular file); its object is reported as "
                                   "never run");
  EXPECT_EQ(totals(r.project).lines_covered, 0);
  EXPECT_GT(totals(r.project).lines, 0);
  // An absent data file is how a never-run object looks: not news.
  BuildResult absent = build({{t.notes, t.dir / "absent.gcda"}}, t.dir.path());
  EXPECT_TRUE(messages(absent).empty());
  EXPECT_EQ(absent.objects_damaged, 0u);
}

TEST(BuildProject, CorruptNotesBodyIsDamage) {
  Tree t;
  t.write_data(t.data, {5, 3, 2, 3, 2}, 7);
  auto bytes = testing::read_bytes(t.notes);
  ASSERT_GT(bytes.size(), 40u);
  bytes.resize(bytes.size() - 6);  // cut inside the last record
  testing::write_bytes(t.notes, bytes);
  BuildResult r = build({{t.notes, t.data}}, t.dir.path());
  EXPECT_EQ(r.objects_damaged, 1u);
  ASSERT_FALSE(messages(r).empty());
  EXPECT_NE(messages(r)[0].find(":corrupted at byte "), std::string::npos) << messages(r)[0];
}

TEST(BuildProject, ProgressIsCalledOncePerObject) {
  Tree t;
  t.write_data(t.data, {5, 3, 2, 3, 2}, 7);
  std::atomic<size_t> calls{0}, last_total{0};
  BuildOptions opts;
  opts.threads = 2;
  opts.progress = [&](size_t, size_t total) {
    ++calls;
    last_total = total;
  };
  build_project({{t.notes, t.data}, {t.notes, ""}, {t.notes, t.data}}, SourcePathRules(t.dir.path(), "", {}),
                PathFilter({}, {}, false), opts);
  EXPECT_EQ(calls.load(), 3u);
  EXPECT_EQ(last_total.load(), 3u);
}

TEST(BuildProject, EmptyObjectListIsAnEmptyProject) {
  BuildResult r = build({}, "/");
  EXPECT_TRUE(r.project.files.empty());
  EXPECT_TRUE(messages(r).empty());
  EXPECT_EQ(r.objects_failed, 0u);
}

// The known program of test_support.h, built with gcc-12 and run once.
TEST(BuildProjectReal, KnownProgramGcc12) {
  COVKIT_REQUIRE_PROGRAM(p, "gcc-12");
  BuildResult r = build({{p.gcno_path, p.gcda_path}}, p.dir);
  EXPECT_TRUE(messages(r).empty()) << messages(r)[0];
  ASSERT_EQ(r.project.files.size(), 1u);
  const FileCov& f = r.project.files[0];
  EXPECT_EQ(f.path, "p.c");
  EXPECT_EQ(f.absolute_path, p.source_path);
  std::vector<std::pair<uint32_t, int64_t>> lines;
  for (const LineCov& l : f.lines) lines.emplace_back(l.number, l.count);
  const std::vector<std::pair<uint32_t, int64_t>> expected = {{1, 0},  {2, 10},  {4, 1},  {7, 1},  {8, 11},
                                                              {9, 10}, {10, 16}, {11, 1}, {12, 0}, {13, 1}};
  EXPECT_EQ(lines, expected);
  ASSERT_EQ(f.functions.size(), 3u);
  EXPECT_EQ(f.functions[0].name, "never");
  EXPECT_EQ(f.functions[0].execution_count, 0);
  EXPECT_EQ(f.functions[1].name, "sq");
  EXPECT_EQ(f.functions[1].execution_count, 10);
  EXPECT_EQ(f.functions[2].name, "main");
  EXPECT_EQ(f.functions[2].execution_count, 1);
  Totals t = totals(r.project);
  EXPECT_EQ(t.lines, 10);
  EXPECT_EQ(t.lines_covered, 8);
  EXPECT_EQ(t.functions, 3);
  EXPECT_EQ(t.functions_covered, 2);
  EXPECT_EQ(t.branches, 8);  // gcov-12 -b: "Branches executed:100.00% of 8", taken 7
  EXPECT_EQ(t.branches_covered, 7);
}

}  // namespace
}  // namespace covkit::model
