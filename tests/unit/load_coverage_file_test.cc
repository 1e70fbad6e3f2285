// model/load_coverage_file and format/coverage_file_format: one detection
// rule for every command, and lcov's rules applied by the model to the
// readers' records.
#include "model/load_coverage_file.h"

#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <unistd.h>

#include <string>

#include "format/coverage_file_format.h"
#include "format/lcov_tracefile_reader.h"
#include "model/coverage_merge.h"
#include "util/file_io.h"

namespace covkit::model {
namespace load_coverage_file_test {

using format::CoverageFileFormat;
using format::detect_coverage_format;

TEST(DetectCoverageFormat, ContentFirstThenName) {
  EXPECT_EQ(detect_coverage_format("x.info", " \n{\"format\": 1}"), CoverageFileFormat::kCovkitJson);
  EXPECT_EQ(detect_coverage_format("x.json", "# made by hand\n\nTN:\nSF:a.c\n"), CoverageFileFormat::kLcov);
  EXPECT_EQ(detect_coverage_format("x", "SF:a.c\n"), CoverageFileFormat::kLcov);
  EXPECT_EQ(detect_coverage_format("x", ""), CoverageFileFormat::kLcov);  // a tracefile without records
  EXPECT_EQ(detect_coverage_format("x.json", "[1, 2]"), CoverageFileFormat::kCovkitJson);
  EXPECT_EQ(detect_coverage_format("x.lcov", "garbage"), CoverageFileFormat::kLcov);
  EXPECT_EQ(detect_coverage_format("x.txt", "garbage"), std::nullopt);
  EXPECT_EQ(detect_coverage_format("x.txt", "sf:lowercase is no lcov key"), std::nullopt);
}

// The reader lists what the file says; the model sums and merges.
TEST(ToModel, AppliesLcovRulesToRecords) {
  auto records = format::read_lcov_tracefile(
      "SF:/s/a.c\nFNDA:2,f\nDA:3,1\nBRDA:3,0,0,1\nDA:3,4\nBRDA:3,0,1,-\nFN:2,9,f\nFNDA:5,f\nend_of_record\n"
      "SF:/s/a.c\nDA:3,10\nBRDA:3,0,0,7\nend_of_record\n");
  ASSERT_TRUE(records) << records.error().message;
  EXPECT_EQ(records->sources.size(), 2u);
  EXPECT_EQ(records->sources[0].lines.size(), 3u);      // DA:3 twice, and an entry gathering the BRDAs
  EXPECT_EQ(records->sources[0].functions.size(), 3u);  // FNDA, FN, FNDA
  ProjectCov p = to_model(std::move(*records));
  ASSERT_EQ(p.files.size(), 1u);
  const FileCov& f = p.files[0];
  ASSERT_EQ(f.lines.size(), 1u);
  EXPECT_EQ(f.lines[0].count, 15);
  ASSERT_EQ(f.lines[0].branches.size(), 2u);
  EXPECT_EQ(f.lines[0].branches[0].count, 8);
  EXPECT_FALSE(f.lines[0].branches[1].executed);
  ASSERT_EQ(f.functions.size(), 1u);
  EXPECT_EQ(f.functions[0].execution_count, 7);
  // FNDA came first, without a place: the place is FN's.
  EXPECT_EQ(f.functions[0].start_line, 2u);
  EXPECT_EQ(f.functions[0].end_line, 9u);
}

// llvm-cov writes BRDA without DA for a condition on a line its line rules
// do not count: the line keeps its branches and stays without a count (no
// DA written back, not a line of the totals); a DA elsewhere makes it one.
TEST(ToModel, BranchesWithoutALineCount) {
  auto records = format::read_lcov_tracefile(
      "SF:/s/a.c\nDA:2,1\nBRDA:3,0,0,4\nBRDA:3,0,1,0\nend_of_record\n"
      "SF:/s/b.c\nBRDA:5,0,0,1\nBRDA:5,0,1,1\nend_of_record\nSF:/s/b.c\nDA:5,2\nend_of_record\n");
  ASSERT_TRUE(records) << records.error().message;
  ProjectCov p = to_model(std::move(*records));
  ASSERT_EQ(p.files.size(), 2u);
  const FileCov& a = p.files[0];
  ASSERT_EQ(a.lines.size(), 2u);
  EXPECT_FALSE(a.lines[0].no_count);
  EXPECT_TRUE(a.lines[1].no_count);
  EXPECT_EQ(a.lines[1].branches.size(), 2u);
  const Totals t = totals(a);
  EXPECT_EQ(t.lines, 1);
  EXPECT_EQ(t.lines_covered, 1);
  EXPECT_EQ(t.branches, 2);
  const FileCov& b = p.files[1];
  ASSERT_EQ(b.lines.size(), 1u);
  EXPECT_FALSE(b.lines[0].no_count);  // b.c's second record counts line 5
  EXPECT_EQ(b.lines[0].count, 2);
  EXPECT_EQ(b.lines[0].branches.size(), 2u);
}

TEST(LoadCoverageFile, NamesWhatIsWrong) {
  const std::string dir = ::testing::TempDir();
  const std::string notes = dir + "covkit_load_" + std::to_string(::getpid()) + ".txt";
  ASSERT_TRUE(util::write_file_atomic(notes, "just some notes\n"));
  std::vector<std::string> warnings;
  auto r = load_coverage_file(notes, warnings);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().message, "neither an lcov tracefile nor covkit JSON");
  ::unlink(notes.c_str());

  auto missing = load_coverage_file(dir + "covkit_no_such_file.info", warnings);
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().message, "No such file or directory");

  const std::string bad = dir + "covkit_load_" + std::to_string(::getpid()) + ".info";
  ASSERT_TRUE(util::write_file_atomic(bad, "SF:a\nDA:x,1\n"));
  auto parsed = load_coverage_file(bad, warnings);
  ASSERT_FALSE(parsed);
  EXPECT_EQ(parsed.error().message, "line 2: line number 'x' is not a number");
  ::unlink(bad.c_str());
  EXPECT_TRUE(warnings.empty());
}

// lcov 1.16 keeps a record at its end_of_record only: a record left open
// by the next SF, or by the end of a file cut short, is dropped (lcov -a
// writes neither); covkit drops it too, and says so.
TEST(LoadCoverageFile, RecordsWithoutEndOfRecordAreLeftOutAndSaid) {
  const std::string path = ::testing::TempDir() + "covkit_open_" + std::to_string(::getpid()) + ".info";
  ASSERT_TRUE(util::write_file_atomic(path, "TN:\nSF:a.c\nDA:1,1\nSF:b.c\nDA:1,3\nend_of_record\nSF:c.c\nDA:2,0\n"));
  std::vector<std::string> warnings;
  auto p = load_coverage_file(path, warnings);
  ::unlink(path.c_str());
  ASSERT_TRUE(p) << p.error().message;
  ASSERT_EQ(p->files.size(), 1u);
  EXPECT_EQ(p->files[0].path, "b.c");
  EXPECT_EQ(warnings, (std::vector<std::string>{
                          path + ": line 2: the record of a.c has no end_of_record (cut short?); left out, as lcov "
                                 "leaves it",
                          path + ": line 7: the record of c.c has no end_of_record (cut short?); left out, as lcov "
                                 "leaves it"}));
}


// Everything a report shows of a model, one line per item.
std::string described(const ProjectCov& p) {
  std::string out;
  for (const std::string& t : p.test_names) out += "TN " + t + "\n";
  for (const FileCov& f : p.files) {
    out += "SF " + f.path + " " + f.absolute_path + "\n";
    for (const LineCov& l : f.lines) {
      out += "DA " + std::to_string(l.number) + " " + std::to_string(l.count);
      for (const BranchCov& b : l.branches)
        out += " " + std::to_string(b.block) + ":" + (b.executed ? std::to_string(b.count) : "-");
      out += "\n";
    }
    for (const FunctionCov& fn : f.functions)
      out += "FN " + fn.name + " " + std::to_string(fn.start_line) + "-" + std::to_string(fn.end_line) + " " +
             std::to_string(fn.execution_count) + "\n";
  }
  return out;
}

std::string temp_tracefile(const std::string& name, const std::string& text) {
  const std::string path = ::testing::TempDir() + "covkit_load_" + std::to_string(::getpid()) + "_" + name;
  EXPECT_TRUE(util::write_file_atomic(path, text));
  return path;
}

// The source-by-source add (what merge and report -a do, so that a 1 GB
// tracefile's model is never held twice) makes what loading the whole file
// and merging it did: copies of a source within the file (many, folded
// as they come), across files, lines out of order, branches and functions.
TEST(AddCoverageFile, EqualsLoadingThenMerging) {
  std::string first = "TN:one\nSF:/s/b.c\nDA:1,1\nDA:2,0\nFN:1,g\nFNDA:1,g\nend_of_record\n"
                      "SF:/s/a.c\nDA:5,2\nBRDA:5,0,0,1\nBRDA:5,0,1,-\nend_of_record\n";
  std::string second = "TN:two\n";
  for (int copy = 0; copy < 40; ++copy) {
    second += "SF:/s/a.c\n";
    for (int line = 30; line > 0; line -= 1 + copy % 3)
      second += "DA:" + std::to_string(line) + "," + std::to_string(copy * line % 7) + "\n";
    second += "BRDA:5,0,0," + std::to_string(copy) + "\nBRDA:5,0,1," + (copy % 2 ? "-" : "3") + "\n";
    second += "FN:" + std::to_string(2 + copy % 4) + ",f" + std::to_string(copy % 5) + "\nFNDA:" +
              std::to_string(copy) + ",f" + std::to_string(copy % 5) + "\nend_of_record\n";
    if (copy % 9 == 0) second += "SF:/s/c" + std::to_string(copy) + ".c\nDA:1,1\nend_of_record\n";
  }
  second += "SF:/s/b.c\nDA:2,5\nFNDA:3,g\nend_of_record\n";
  const std::string a = temp_tracefile("first.info", first), b = temp_tracefile("second.info", second);

  std::vector<std::string> warnings;
  auto loaded_a = load_coverage_file(a, warnings);
  auto loaded_b = load_coverage_file(b, warnings);
  ASSERT_TRUE(loaded_a && loaded_b);
  ProjectCov merged;
  merge_project(merged, std::move(*loaded_a));
  merge_project(merged, std::move(*loaded_b));

  ProjectCov added;
  ASSERT_TRUE(add_coverage_file(added, a, warnings));
  ASSERT_TRUE(add_coverage_file(added, b, warnings));
  EXPECT_TRUE(warnings.empty());
  EXPECT_EQ(described(added), described(merged));
  EXPECT_EQ(added.test_names, (std::vector<std::string>{"one", "two"}));
  ASSERT_GE(added.files.size(), 3u);
  EXPECT_EQ(added.files[0].path, "/s/a.c");
  ::unlink(a.c_str());
  ::unlink(b.c_str());
}

// lcov 1.16 reads a tracefile's records of one source into one entry, a
// later FN line of a name replacing the earlier (zstd's pool.c, built twice
// with other #ifs, has POOL_create at 111 and at 326); lcov -a keeps the
// first file's line (and warns "function data mismatch").
TEST(AddCoverageFile, AFunctionsLastLineInAFileTheFirstFilesAcrossFiles) {
  const std::string both = temp_tracefile("both.info",
                                          "SF:/s/x.c\nFN:10,f\nFNDA:1,f\nFN:12,g\nDA:10,1\nend_of_record\n"
                                          "SF:/s/x.c\nFN:20,f\nFNDA:2,f\nDA:20,2\nend_of_record\n");
  const std::string early = temp_tracefile("early.info", "SF:/s/x.c\nFN:5,f\nFNDA:1,f\nDA:5,1\nend_of_record\n");
  auto lines = [](const ProjectCov& p) {
    std::vector<std::pair<std::string, uint32_t>> out;
    for (const FunctionCov& fn : p.files.at(0).functions) out.emplace_back(fn.name, fn.start_line);
    return out;
  };
  using Lines = std::vector<std::pair<std::string, uint32_t>>;
  std::vector<std::string> warnings;
  auto alone = load_coverage_file(both, warnings);
  ASSERT_TRUE(alone);
  EXPECT_EQ(lines(*alone), (Lines{{"g", 12}, {"f", 20}}));  // in line order
  EXPECT_EQ(alone->files[0].functions[1].execution_count, 3);
  ProjectCov added;
  ASSERT_TRUE(add_coverage_file(added, both, warnings));
  EXPECT_EQ(lines(added), (Lines{{"g", 12}, {"f", 20}}));
  ProjectCov after_early;
  ASSERT_TRUE(add_coverage_file(after_early, early, warnings));
  ASSERT_TRUE(add_coverage_file(after_early, both, warnings));
  EXPECT_EQ(lines(after_early), (Lines{{"f", 5}, {"g", 12}}));  // the first file's line stays
  ::unlink(both.c_str());
  ::unlink(early.c_str());
}

// lcov 1.16 -a leaves out a source with no DA line, though its records hold
// functions and branches (checked against lcov 1.16: x.c is not in its
// output); report -a and merge do too.
TEST(AddCoverageFile, ASourceWithoutLineCountsIsLeftOut) {
  const std::string t = temp_tracefile("nolines.info",
                                       "SF:/s/x.c\nFN:2,f\nFNDA:1,f\nBRDA:3,0,0,1\nBRDA:3,0,1,0\nend_of_record\n"
                                       "SF:/s/y.c\nDA:1,1\nBRDA:1,0,0,1\nBRDA:1,0,1,-\nend_of_record\n");
  std::vector<std::string> warnings;
  auto alone = load_coverage_file(t, warnings);
  ASSERT_TRUE(alone);
  ASSERT_EQ(alone->files.size(), 1u);
  EXPECT_EQ(alone->files[0].path, "/s/y.c");
  ProjectCov added;
  ASSERT_TRUE(add_coverage_file(added, t, warnings));
  ASSERT_EQ(added.files.size(), 1u);
  EXPECT_EQ(added.files[0].path, "/s/y.c");
  ASSERT_EQ(added.files[0].lines.size(), 1u);
  EXPECT_EQ(added.files[0].lines[0].branches.size(), 2u);
  ::unlink(t.c_str());
}

// Per tracefile, as lcov 1.16 -a drops it (checked against lcov in each
// order): b.info's records of x.c hold no DA, so they go, though a.info
// gave x.c lines; c.info's record of x.c without DA comes before one with
// DA, so both count.
TEST(AddCoverageFile, ASourceWithoutLineCountsIsLeftOutOfThatTracefileOnly) {
  const std::string a = temp_tracefile("a.info", "SF:/s/x.c\nFN:2,f\nFNDA:1,f\nDA:2,1\nend_of_record\n");
  const std::string b = temp_tracefile("b.info",
                                       "SF:/s/x.c\nFN:2,f\nFNDA:5,f\nFN:7,g\nFNDA:3,g\nBRDA:3,0,0,1\nBRDA:3,0,1,0\n"
                                       "end_of_record\nSF:/s/y.c\nDA:1,1\nend_of_record\n"
                                       "SF:/s/x.c\nFN:9,h\nFNDA:1,h\nend_of_record\n");
  const std::string c = temp_tracefile("c.info",
                                       "SF:/s/x.c\nFN:2,f\nFNDA:5,f\nBRDA:3,0,0,1\nBRDA:3,0,1,0\nend_of_record\n"
                                       "SF:/s/x.c\nDA:2,4\nFN:2,f\nend_of_record\n");
  std::vector<std::string> warnings;
  auto x_of = [](const ProjectCov& p) -> const FileCov& {
    for (const FileCov& f : p.files)
      if (f.path == "/s/x.c") return f;
    ADD_FAILURE() << "no x.c";
    return p.files.at(0);
  };
  for (bool a_first : {true, false}) {
    ProjectCov p;
    ASSERT_TRUE(add_coverage_file(p, a_first ? a : b, warnings));
    ASSERT_TRUE(add_coverage_file(p, a_first ? b : a, warnings));
    ASSERT_EQ(p.files.size(), 2u);  // x.c (a's only) and y.c
    const FileCov& x = x_of(p);
    ASSERT_EQ(x.functions.size(), 1u);
    EXPECT_EQ(x.functions[0].name, "f");
    EXPECT_EQ(x.functions[0].execution_count, 1);
    ASSERT_EQ(x.lines.size(), 1u);
    EXPECT_TRUE(x.lines[0].branches.empty());
  }
  ProjectCov q;
  ASSERT_TRUE(add_coverage_file(q, c, warnings));
  ASSERT_EQ(q.files.size(), 1u);
  const FileCov& x = x_of(q);
  ASSERT_EQ(x.functions.size(), 1u);
  EXPECT_EQ(x.functions[0].execution_count, 5);
  ASSERT_EQ(x.lines.size(), 2u);  // line 2 counted, line 3 branches only
  EXPECT_EQ(x.lines[0].count, 4);
  EXPECT_EQ(x.lines[1].branches.size(), 2u);
  for (const std::string& t : {a, b, c}) ::unlink(t.c_str());
}

// The reader hands each record over at its end_of_record and keeps none.
TEST(ReadLcovTracefile, HandsEachSourceOverAsItIsRead) {
  std::vector<std::string> seen;
  auto r = format::read_lcov_tracefile("TN:t\nSF:/x.c\nDA:1,1\nend_of_record\nSF:/y.c\nDA:2,0\nend_of_record\nSF:/z.c\n",
                                       [&](format::SourceRecord&& s) {
                                         seen.push_back(s.path + ":" + std::to_string(s.lines.size()));
                                       });
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(seen, (std::vector<std::string>{"/x.c:1", "/y.c:1"}));
  EXPECT_TRUE(r->sources.empty());
  EXPECT_EQ(r->test_names, (std::vector<std::string>{"t"}));
  ASSERT_EQ(r->warnings.size(), 1u);  // /z.c has no end_of_record
}

}  // namespace load_coverage_file_test
}  // namespace covkit::model
