// Clang's regions in the model and its views: llvm-cov's region totals
// (instantiations of one place count once, with the most of any), regions
// and branch blocks through merging, covkit JSON, lcov, the terminal table
// and the HTML source page.
#include <gtest/gtest.h>

#include <string>

#include "format/covkit_json_reader.h"
#include "format/lcov_tracefile_reader.h"
#include "model/coverage_merge.h"
#include "model/load_coverage_file.h"
#include "model/project_coverage.h"
#include "report/covkit_json_writer.h"
#include "report/html/html_source_page.h"
#include "report/lcov_writer.h"
#include "report/terminal_summary.h"

namespace covkit {
namespace region_model_test {

model::FunctionCov fn(std::string name, uint32_t line, uint32_t column, uint32_t regions, uint32_t covered,
                      int64_t count = 1) {
  model::FunctionCov f;
  f.name = std::move(name);
  f.start_line = line;
  f.start_column = column;
  f.regions = regions;
  f.regions_covered = covered;
  f.execution_count = count;
  return f;
}

model::FileCov clang_file() {
  model::FileCov f;
  f.path = "t.cc";
  f.absolute_path = "/p/t.cc";
  model::LineCov l1;
  l1.number = 3;
  l1.count = 2;
  for (uint32_t pair : {0u, 0u, 1u, 1u}) {
    model::BranchCov b;
    b.count = pair;
    b.executed = true;
    b.block = pair;
    l1.branches.push_back(b);
  }
  f.lines.push_back(l1);
  // Two instantiations of one template (same place), and a plain function.
  f.functions = {fn("_Z3maxIiET_S0_S0_", 3, 1, 5, 2), fn("_Z3maxIdET_S0_S0_", 3, 1, 4, 4), fn("main", 9, 1, 3, 3)};
  f.regions = {{3, 1, 3, 40, 2}, {3, 12, 3, 20, 0}, {9, 1, 12, 2, 1}};
  return f;
}

TEST(RegionTotals, InstantiationsCountOnceWithTheMost) {
  model::Totals t = model::totals(clang_file());
  EXPECT_EQ(t.regions, 5 + 3);          // max(5, 4) + 3
  EXPECT_EQ(t.regions_covered, 4 + 3);  // max(2, 4) + 3
  EXPECT_EQ(t.functions, 3);
  EXPECT_EQ(t.branches, 4);
  EXPECT_EQ(t.branches_covered, 2);
}

TEST(RegionTotals, MergedAndKept) {
  model::ProjectCov a, b;
  a.files.push_back(clang_file());
  b.files.push_back(clang_file());
  model::merge_project(a, std::move(b));
  ASSERT_EQ(a.files.size(), 1u);
  const model::FileCov& f = a.files[0];
  ASSERT_EQ(f.regions.size(), 3u);  // one per range, counts added
  EXPECT_EQ(f.regions[0].count, 4);
  EXPECT_EQ(f.regions[1].count, 0);
  EXPECT_EQ(model::totals(f).regions, 8);  // the same functions: the most, not the sum
  EXPECT_EQ(f.lines[0].branches[2].block, 1u);
}

TEST(RegionTotals, CovkitJsonRoundTrip) {
  model::ProjectCov p;
  p.files.push_back(clang_file());
  const std::string json = report::render_covkit_json(p);
  auto records = format::read_covkit_json(json);
  ASSERT_TRUE(records) << records.error().message;
  model::ProjectCov back = model::to_model(std::move(*records));
  ASSERT_EQ(back.files.size(), 1u);
  const model::FileCov& f = back.files[0];
  ASSERT_EQ(f.regions.size(), 3u);
  EXPECT_EQ(f.regions[2].line_end, 12u);
  EXPECT_EQ(f.lines[0].branches[3].block, 1u);
  EXPECT_EQ(model::totals(f).regions, model::totals(p.files[0]).regions);
  EXPECT_EQ(model::totals(f).regions_covered, model::totals(p.files[0]).regions_covered);
  // A hostile region entry is an error, not a crash.
  EXPECT_FALSE(format::read_covkit_json(
      R"({"format":"covkit-coverage","format_version":1,"files":[{"path":"a","regions":[[1,2,3]]}]})"));
  EXPECT_FALSE(format::read_covkit_json(
      R"({"format":"covkit-coverage","format_version":1,"files":[{"path":"a","regions":[[1,2,3,-4,5]]}]})"));
}

TEST(RegionTotals, LcovBlocksWrittenAndRead) {
  model::ProjectCov p;
  p.files.push_back(clang_file());
  const std::string info = report::render_lcov(p, {});
  EXPECT_NE(info.find("BRDA:3,0,0,0\nBRDA:3,0,1,0\nBRDA:3,1,2,1\nBRDA:3,1,3,1\n"), std::string::npos) << info;
  auto records = format::read_lcov_tracefile(info);
  ASSERT_TRUE(records);
  model::ProjectCov back = model::to_model(std::move(*records));
  EXPECT_EQ(back.files[0].lines[0].branches[3].block, 1u);
}

TEST(RegionTotals, TerminalTableShowsRegionsOnlyWhenThereAreSome) {
  model::ProjectCov p;
  p.files.push_back(clang_file());
  std::string with = report::render_terminal_summary(p, {});
  EXPECT_NE(with.find("Regions"), std::string::npos);
  EXPECT_NE(with.find("      8       7   87.5%"), std::string::npos) << with;
  for (auto& f : p.files[0].functions) f.regions = f.regions_covered = 0;
  EXPECT_EQ(report::render_terminal_summary(p, {}).find("Regions"), std::string::npos);
}

TEST(RegionTotals, HtmlShowsWhatRanOfALine) {
  model::FileCov f = clang_file();
  const std::string source = "\n\nint x = max(a, b) ? one() : two();\n";
  report::html::HtmlOptions o;
  std::string page = report::html::render_source_page(f, source, "", "", o);
  // Line 3 ran, a region on it did not: partial, with the regions listed.
  EXPECT_NE(page.find("<tr id=\"L3\" class=\"partial\">"), std::string::npos) << page;
  EXPECT_NE(page.find("1 of 2 regions starting here ran"), std::string::npos);
  EXPECT_NE(page.find("column 12\u201320: 0\u00d7"), std::string::npos);
  EXPECT_NE(page.find("<h3>Regions</h3>"), std::string::npos);
  EXPECT_NE(page.find("Regions executed"), std::string::npos);
}

}  // namespace region_model_test
}  // namespace covkit
