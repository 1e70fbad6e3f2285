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

}  // namespace
}  // namespace covkit::model
