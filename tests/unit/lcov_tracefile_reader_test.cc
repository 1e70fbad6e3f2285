// format/lcov_tracefile_reader: lcov 1.x/2.x tracefiles into the model,
// records of one source merged by lcov's rules, hostile lines rejected.
#include "format/lcov_tracefile_reader.h"

#include <gtest/gtest.h>

#include <string>

#include "model/load_coverage_file.h"
#include "report/lcov_writer.h"

namespace covkit::format {
namespace lcov_tracefile_reader_test {

using namespace std::literals;

// The records as the model sees them (lcov's rules applied).
model::ProjectCov must_read(std::string_view text) {
  auto r = read_lcov_tracefile(text);
  EXPECT_TRUE(r) << r.error().message;
  return r ? model::to_model(std::move(*r)) : model::ProjectCov{};
}

std::string error_of(std::string_view text) {
  auto r = read_lcov_tracefile(text);
  EXPECT_FALSE(r);
  return r ? "" : r.error().message;
}

TEST(LcovTracefileReader, ReadsOneRecord) {
  auto p = must_read(
      "TN:unit\n"
      "SF:/src/a.c\n"
      "VER:abc\n"
      "FN:3,main\n"
      "FN:1,6,helper\n"
      "FNDA:1,main\n"
      "FNDA:0,helper\n"
      "FNF:2\nFNH:1\n"
      "BRDA:4,0,0,3\n"
      "BRDA:4,0,1,-\n"
      "BRF:2\nBRH:1\n"
      "DA:3,1\n"
      "DA:4,4,c2FtcGxlY2hlY2tzdW0\n"
      "DA:5,0\n"
      "LF:3\nLH:2\n"
      "end_of_record\n");
  ASSERT_EQ(p.files.size(), 1u);
  const model::FileCov& f = p.files[0];
  EXPECT_EQ(f.path, "/src/a.c");
  EXPECT_EQ(f.absolute_path, "/src/a.c");
  ASSERT_EQ(f.lines.size(), 3u);
  EXPECT_EQ(f.lines[0].number, 3u);
  EXPECT_EQ(f.lines[1].count, 4);
  ASSERT_EQ(f.lines[1].branches.size(), 2u);
  EXPECT_EQ(f.lines[1].branches[0].count, 3);
  EXPECT_TRUE(f.lines[1].branches[0].executed);
  EXPECT_EQ(f.lines[1].branches[1].count, 0);
  EXPECT_FALSE(f.lines[1].branches[1].executed);
  ASSERT_EQ(f.functions.size(), 2u);
  EXPECT_EQ(f.functions[0].name, "helper");  // sorted by start line
  EXPECT_EQ(f.functions[0].start_line, 1u);
  EXPECT_EQ(f.functions[0].end_line, 6u);
  EXPECT_EQ(f.functions[0].execution_count, 0);
  EXPECT_EQ(f.functions[1].name, "main");
  EXPECT_EQ(f.functions[1].execution_count, 1);
  EXPECT_EQ(f.functions[1].end_line, 0u);
}

TEST(LcovTracefileReader, DuplicateRecordsMergeByLcovRules) {
  auto p = must_read(
      "TN:first\n"
      "SF:b.c\n"
      "FN:2,f\n"
      "FNDA:2,f\n"
      "DA:2,2\n"
      "DA:3,0\n"
      "BRDA:3,0,0,-\n"
      "BRDA:3,0,1,-\n"
      "end_of_record\n"
      "SF:a.c\n"
      "DA:1,1\n"
      "end_of_record\n"
      "TN:second\n"
      "SF:b.c\n"
      "FN:2,f\n"
      "FN:9,g\n"
      "FNDA:5,f\n"
      "FNDA:1,g\n"
      "DA:2,5\n"
      "DA:3,5\n"
      "DA:3,1\n"  // listed twice in one record: lcov adds
      "DA:10,1\n"
      "BRDA:3,0,0,4\n"
      "BRDA:3,0,1,2\n"
      "BRDA:3,1,0,1\n"
      "end_of_record\n");
  ASSERT_EQ(p.files.size(), 2u);
  EXPECT_EQ(p.files[0].path, "a.c");
  const model::FileCov& b = p.files[1];
  ASSERT_EQ(b.lines.size(), 3u);
  EXPECT_EQ(b.lines[0].count, 7);
  EXPECT_EQ(b.lines[1].count, 6);
  EXPECT_EQ(b.lines[2].number, 10u);
  ASSERT_EQ(b.lines[1].branches.size(), 3u);  // by position: 0+4, 0+2, and a third only in the second record
  EXPECT_EQ(b.lines[1].branches[0].count, 4);
  EXPECT_TRUE(b.lines[1].branches[0].executed);
  EXPECT_EQ(b.lines[1].branches[1].count, 2);
  EXPECT_EQ(b.lines[1].branches[2].count, 1);
  ASSERT_EQ(b.functions.size(), 2u);
  EXPECT_EQ(b.functions[0].name, "f");
  EXPECT_EQ(b.functions[0].execution_count, 7);
  EXPECT_EQ(b.functions[1].name, "g");
  EXPECT_EQ(b.functions[1].start_line, 9u);
}

// lcov 1.16 lists a line's branches once per function that holds the line
// (pcre2test.c #includes pcre2_printint.c three times: BRDA:100,0,0 and
// BRDA:100,0,1 come three times in one record); reading it back, lcov adds
// a (block, branch) listed again, a count replacing a "-".
TEST(LcovTracefileReader, BranchListedAgainInOneRecordAddsAsLcovReadsIt) {
  auto p = must_read(
      "SF:printint.c\n"
      "DA:100,3730\n"
      "BRDA:100,0,0,420\n"
      "BRDA:100,0,1,3310\n"
      "DA:100,3728\n"
      "BRDA:100,0,0,-\n"
      "BRDA:100,0,1,3308\n"
      "BRDA:0100,e0,1,7\n"
      "DA:100,3598\n"
      "BRDA:100,0,0,411\n"
      "BRDA:100,0,1,-\n"
      "BRDA:100,e0,1,1\n"
      "BRDA:100,0,(x > 0) == True,2\n"  // lcov 2's expression branches: the same text adds
      "BRDA:100,0,(x > 0) == True,3\n"
      "BRDA:100,0,(x > 0) == False,-\n"
      "end_of_record\n");
  ASSERT_EQ(p.files.size(), 1u);
  ASSERT_EQ(p.files[0].lines.size(), 1u);
  const model::LineCov& l = p.files[0].lines[0];
  EXPECT_EQ(l.count, 3730 + 3728 + 3598);
  ASSERT_EQ(l.branches.size(), 5u);
  EXPECT_EQ(l.branches[0].count, 420 + 411);
  EXPECT_EQ(l.branches[1].count, 3310 + 3308);
  EXPECT_TRUE(l.branches[2].is_throw);
  EXPECT_EQ(l.branches[2].count, 8);
  EXPECT_EQ(l.branches[3].count, 5);
  EXPECT_FALSE(l.branches[4].executed);
}

// lcov 1.16's capture writes "SF:shapes.h" + "end_of_record" for a header
// whose only functions (implicit members) have no lines; lcov -a drops it.
TEST(LcovTracefileReader, RecordWithNothingInItIsLeftOutAsLcovLeavesIt) {
  auto p = must_read(
      "SF:shapes.h\n"
      "end_of_record\n"
      "SF:main.cc\n"
      "DA:1,1\n"
      "end_of_record\n"
      "SF:only_functions.h\n"
      "FN:3,f\n"
      "end_of_record\n");
  ASSERT_EQ(p.files.size(), 2u);
  EXPECT_EQ(p.files[0].path, "main.cc");
  EXPECT_EQ(p.files[1].path, "only_functions.h");
}

TEST(LcovTracefileReader, Lcov22FunctionAliasesAndThrowBranches) {
  auto p = must_read(
      "SF:t.cc\n"
      "FNL:0,10,14\n"
      "FNA:0,3,_Z1fIiEvT_\n"
      "FNA:0,1,_Z1fIlEvT_\n"
      "FNL:1,20\n"
      "FNA:1,0,_Z1gv\n"
      "BRDA:11,0,0,2\n"
      "BRDA:11,e0,1,0\n"
      "BRDA:11,0,(x > 0) == True,1\n"  // lcov 2 may write an expression as the branch
      "DA:11,3\n"
      "end_of_record\n");
  ASSERT_EQ(p.files.size(), 1u);
  const model::FileCov& f = p.files[0];
  ASSERT_EQ(f.functions.size(), 3u);
  EXPECT_EQ(f.functions[0].name, "_Z1fIiEvT_");
  EXPECT_EQ(f.functions[0].start_line, 10u);
  EXPECT_EQ(f.functions[0].end_line, 14u);
  EXPECT_EQ(f.functions[0].execution_count, 3);
  EXPECT_EQ(f.functions[1].name, "_Z1fIlEvT_");
  EXPECT_EQ(f.functions[1].execution_count, 1);
  EXPECT_EQ(f.functions[2].start_line, 20u);
  EXPECT_EQ(f.functions[2].end_line, 0u);
  ASSERT_EQ(f.lines.size(), 1u);
  ASSERT_EQ(f.lines[0].branches.size(), 3u);
  EXPECT_FALSE(f.lines[0].branches[0].is_throw);
  EXPECT_TRUE(f.lines[0].branches[1].is_throw);
  EXPECT_TRUE(f.lines[0].branches[1].executed);
  EXPECT_EQ(f.lines[0].branches[2].count, 1);
}

TEST(LcovTracefileReader, ToleratesWhatLcovTolerates) {
  auto p = must_read(
      "\r\n"
      "SF:c.c\r\n"
      "FNDA:4,late\r\n"  // FNDA before its FN
      "FN:7,late\r\n"
      "DA:7,4\r\n"
      "MCDC:7,2,t,1,0,x\r\n"  // a later lcov's key: ignored
      "end_of_record\r\n"
      "end_of_record\n"  // stray
      "SF:d.c\n"
      "DA:1,1\n"
      "end_of_record");  // no newline at the end
  ASSERT_EQ(p.files.size(), 2u);
  EXPECT_EQ(p.files[0].functions[0].start_line, 7u);
  EXPECT_EQ(p.files[0].functions[0].execution_count, 4);
  EXPECT_EQ(p.files[1].lines[0].count, 1);
  EXPECT_TRUE(must_read("").files.empty());
}

TEST(LcovTracefileReader, BlanksAfterTheNumbersEndTheLineAsForLcov) {
  // lcov 1.16 reads these as DA:1,1 / BRDA:1,0,0,2 / FN / FNDA; a path keeps its blanks.
  auto p = must_read("SF:dir/with blank \nFN:1,f \t\nFNDA:3,f  \nDA:1,1 \nBRDA:1,0,0,2\t\nend_of_record  \n");
  ASSERT_EQ(p.files.size(), 1u);
  EXPECT_EQ(p.files[0].path, "dir/with blank ");
  ASSERT_EQ(p.files[0].lines.size(), 1u);
  EXPECT_EQ(p.files[0].lines[0].count, 1);
  ASSERT_EQ(p.files[0].lines[0].branches.size(), 1u);
  EXPECT_EQ(p.files[0].lines[0].branches[0].count, 2);
  ASSERT_EQ(p.files[0].functions.size(), 1u);
  EXPECT_EQ(p.files[0].functions[0].name, "f");
  EXPECT_EQ(p.files[0].functions[0].execution_count, 3);
}

TEST(LcovTracefileReader, BranchWithoutLineData) {
  auto p = must_read("SF:x.c\nBRDA:5,0,0,1\nend_of_record\n");
  ASSERT_EQ(p.files[0].lines.size(), 1u);
  EXPECT_EQ(p.files[0].lines[0].count, 0);
  EXPECT_EQ(p.files[0].lines[0].branches.size(), 1u);
}

TEST(LcovTracefileReader, HostileLinesAreOneLineErrors) {
  EXPECT_EQ(error_of("SF:a\nDA:1,1\nBRDA:1,0,5\n"), "line 3: BRDA needs 4 fields");
  EXPECT_EQ(error_of("SF:a\nDA:-1,1\n"), "line 2: negative line number '-1'");
  EXPECT_EQ(error_of("SF:a\nDA:1,-x\n"), "line 2: count 'x' is not a number");
  EXPECT_EQ(error_of("SF:a\nDA:1,--5\n"), "line 2: negative count '-5'");
  EXPECT_EQ(error_of("SF:a\nDA:1,99999999999999999999\n"), "line 2: count '99999999999999999999' is out of range");
  EXPECT_EQ(error_of("SF:a\nDA:1,9223372036854775808\n"), "line 2: count 9223372036854775808 is out of range");
  EXPECT_EQ(error_of("SF:a\nDA:8388609,1\n"), "line 2: line number 8388609 exceeds 8388608");
  EXPECT_EQ(error_of("SF:a\nDA:1x,1\n"), "line 2: line number '1x' is not a number");
  EXPECT_EQ(error_of("SF:a\nDA:1\n"), "line 2: DA needs a line and a count");
  EXPECT_EQ(error_of("SF:a\nDA:1,\n"), "line 2: count '' is not a number");
  EXPECT_EQ(error_of("DA:1,1\n"), "line 1: DA before any SF");
  EXPECT_EQ(error_of("SF:\n"), "line 1: SF needs a path");
  EXPECT_EQ(error_of("SF:a\nFN:1\n"), "line 2: FN needs a line and a name");
  EXPECT_EQ(error_of("SF:a\nFN:1,\n"), "line 2: FN needs a name");
  EXPECT_EQ(error_of("SF:a\nFNDA:1\n"), "line 2: FNDA needs a count and a name");
  EXPECT_EQ(error_of("SF:a\nFNA:0,1,f\n"), "line 2: FNA refers to function index 0 before its FNL");
  EXPECT_EQ(error_of("SF:a\nBRDA:1,x,0,1\n"), "line 2: block 'x' is not a number");
  EXPECT_EQ(error_of("SF:a\nBRDA:1,0,0,many\n"), "line 2: count 'many' is not a number");
  EXPECT_EQ(error_of("SF:a\n\x7f" "ELF\x01\x02\n"), "line 2: not a tracefile line: '\\x7fELF\\x01\\x02'");
  EXPECT_EQ(error_of("SF:a\nDA:1,1\ngarbage\0here\n"sv), "line 3: not a tracefile line: 'garbage\\x00here'");
  std::string long_line = "SF:a\n" + std::string(100000, 'z') + "\n";
  std::string e = error_of(long_line);
  EXPECT_LT(e.size(), 100u);
  // The error carries the byte offset of its line.
  auto r = read_lcov_tracefile("SF:a\nDA:1,1\nend_of_record\nSF:b\nDA:x\n");
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().offset, 31u);
}

// gcov prints the negative counts of counters that lost updates to racing
// threads, and lcov 1.16's geninfo copies them into its tracefile; `lcov -a`
// reads that file back with a warning: DA:17,-5 as 0, BRDA:15,0,1,-5 as
// "-", FNDA:-5,work ignored (work keeps its FN, not run). So does covkit,
// with one warning for the file.
TEST(LcovTracefileReader, NegativeCountsReadAsLcovReadsThem) {
  auto r = read_lcov_tracefile(
      "TN:\nSF:t.c\nFN:12,work\nFNDA:-5,work\nFNDA:0,work\n"
      "BRDA:15,0,0,3\nBRDA:15,0,1,-12100588\nDA:15,3\nDA:17,-12100588\nend_of_record\n");
  ASSERT_TRUE(r) << r.error().message;
  ASSERT_EQ(r->warnings.size(), 1u);
  EXPECT_EQ(r->warnings[0],
            "line 4: 3 negative counts (counters that lost updates to racing threads?) read as not run, as lcov "
            "reads them");
  model::ProjectCov p = model::to_model(std::move(*r));
  ASSERT_EQ(p.files.size(), 1u);
  const model::FileCov& f = p.files[0];
  ASSERT_EQ(f.lines.size(), 2u);
  EXPECT_EQ(f.lines[1].number, 17u);
  EXPECT_EQ(f.lines[1].count, 0);
  ASSERT_EQ(f.lines[0].branches.size(), 2u);
  EXPECT_TRUE(f.lines[0].branches[0].executed);
  EXPECT_FALSE(f.lines[0].branches[1].executed);
  EXPECT_EQ(f.lines[0].branches[1].count, 0);
  ASSERT_EQ(f.functions.size(), 1u);
  EXPECT_EQ(f.functions[0].start_line, 12u);
  EXPECT_EQ(f.functions[0].execution_count, 0);
}

TEST(LcovTracefileReader, LargestValuesAreAccepted) {
  auto p = must_read("SF:a\nDA:8388608,9223372036854775807\nDA:8388608,1\nend_of_record\n");
  EXPECT_EQ(p.files[0].lines[0].number, 8388608u);
  EXPECT_EQ(p.files[0].lines[0].count, INT64_MAX);  // report sums saturate: never negative
}

TEST(LcovTracefileReader, RoundTripsThroughTheLcovWriter) {
  auto p = must_read(
      "TN:\nSF:/src/a.c\nFN:1,5,f\nFNDA:2,f\nBRDA:2,0,0,1\nBRDA:2,0,1,-\nDA:1,2\nDA:2,2\nend_of_record\n"
      "SF:/src/a.c\nFN:1,5,f\nFNDA:1,f\nBRDA:2,0,0,0\nBRDA:2,0,1,1\nDA:1,1\nDA:2,1\nend_of_record\n");
  std::string text = report::render_lcov(p);
  auto again = must_read(text);
  ASSERT_EQ(again.files.size(), 1u);
  const model::FileCov& f = again.files[0];
  ASSERT_EQ(f.lines.size(), 2u);
  EXPECT_EQ(f.lines[0].count, 3);
  ASSERT_EQ(f.lines[1].branches.size(), 2u);
  EXPECT_EQ(f.lines[1].branches[0].count, 1);
  EXPECT_EQ(f.lines[1].branches[1].count, 1);
  EXPECT_TRUE(f.lines[1].branches[1].executed);
  ASSERT_EQ(f.functions.size(), 1u);
  EXPECT_EQ(f.functions[0].execution_count, 3);
  EXPECT_EQ(report::render_lcov(again), text);
}

TEST(LcovTracefileReader, OwnOutputOfANameThatLooksLikeAnEndLineReadsBack) {
  // Found by fuzz_tracefile: "FN:4,0,10," is a function "10," (end line 0);
  // covkit writes it "FN:4,10,", which must read back, not as an end line
  // with no name.
  auto p = must_read("SF:/src/a.c\nFN:4,0,10,\nFNDA:1,10,\nDA:4,1\nend_of_record\n");
  ASSERT_EQ(p.files.size(), 1u);
  ASSERT_EQ(p.files[0].functions.size(), 1u);
  EXPECT_EQ(p.files[0].functions[0].name, "10,");
  std::string once = report::render_lcov(p);
  auto again = must_read(once);
  ASSERT_EQ(again.files.size(), 1u);
  ASSERT_EQ(again.files[0].functions.size(), 1u);
  EXPECT_EQ(again.files[0].functions[0].name, "10,");
  EXPECT_EQ(report::render_lcov(again), once);
}

TEST(LcovTracefileReader, OwnOutputOfANameStartingWithDigitsAndACommaReadsBack) {
  // Found by fuzz_tracefile: FNDA of a function "3333333330,x" with no FN
  // line made covkit write "FN:0,3333333330,x", which it then refused (an
  // end line too big for a line). Such names are written as lcov 2 writes
  // them, with the end line first, and read back as themselves.
  for (const char* name : {"3333333330,x", "5,x"}) {
    auto p = must_read(std::string("SF:/src/a.c\nFNDA:3,") + name + "\nDA:4,1\nend_of_record\n");
    ASSERT_EQ(p.files.size(), 1u);
    ASSERT_EQ(p.files[0].functions.size(), 1u);
    EXPECT_EQ(p.files[0].functions[0].name, name);
    std::string once = report::render_lcov(p);
    EXPECT_NE(once.find(std::string("FN:0,0,") + name + "\n"), std::string::npos) << once;
    auto again = must_read(once);
    ASSERT_EQ(again.files.size(), 1u);
    ASSERT_EQ(again.files[0].functions.size(), 1u);
    EXPECT_EQ(again.files[0].functions[0].name, name);
    EXPECT_EQ(again.files[0].functions[0].execution_count, 3);
    EXPECT_EQ(report::render_lcov(again), once);
  }
}

}  // namespace
}  // namespace covkit::format
