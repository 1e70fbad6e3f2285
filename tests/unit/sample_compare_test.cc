// sample/coverage_compare: recall, precision and frequency divergence of a
// sampled model against the instrumented truth, on models whose answers are
// known by construction.
#include "sample/coverage_compare.h"

#include <gtest/gtest.h>

namespace covkit::sample {
namespace sample_compare_test {

model::LineCov line(uint32_t n, int64_t count) {
  model::LineCov l;
  l.number = n;
  l.count = count;
  return l;
}

model::FileCov file(std::string path, std::vector<model::LineCov> lines) {
  model::FileCov f;
  f.path = path;
  f.absolute_path = "/src/" + path;
  f.lines = std::move(lines);
  return f;
}

TEST(SampleCompare, CountsEachOutcomeOverLinesExecutableOnBothSides) {
  model::ProjectCov truth, sampled;
  // Lines 1-4 on both sides: TP, FN, FP, TN. Line 5 only in the truth, 6 only sampled.
  truth.files = {file("a.c", {line(1, 5), line(2, 3), line(3, 0), line(4, 0), line(5, 1)})};
  sampled.files = {file("a.c", {line(1, 2), line(2, 0), line(3, 1), line(4, 0), line(6, 1)})};
  model::FunctionCov f;
  f.name = "f";
  f.start_line = 1;
  f.end_line = 2;
  truth.files[0].functions = {f};
  const Comparison c = compare_coverage(sampled, truth);
  EXPECT_EQ(c.lines.true_positive, 1);
  EXPECT_EQ(c.lines.false_negative, 1);
  EXPECT_EQ(c.lines.false_positive, 1);
  EXPECT_EQ(c.lines.true_negative, 1);
  EXPECT_EQ(c.only_truth, 1);
  EXPECT_EQ(c.only_sampled, 1);
  EXPECT_DOUBLE_EQ(c.lines.recall(), 0.5);
  EXPECT_DOUBLE_EQ(c.lines.precision(), 0.5);
  ASSERT_EQ(c.files.size(), 1u);
  ASSERT_EQ(c.files[0].functions.size(), 1u);
  EXPECT_EQ(c.files[0].functions[0].lines.true_positive, 1);
  EXPECT_EQ(c.files[0].functions[0].lines.false_negative, 1);
  EXPECT_EQ(c.files[0].functions[0].lines.false_positive, 0);
}

TEST(SampleCompare, FilesOnOneSideAreListedNotCounted) {
  model::ProjectCov truth, sampled;
  truth.files = {file("a.c", {line(1, 1)}), file("b.c", {line(1, 1)})};
  sampled.files = {file("a.c", {line(1, 1)}), file("c.c", {line(1, 1)})};
  const Comparison c = compare_coverage(sampled, truth);
  EXPECT_EQ(c.lines.true_positive, 1);
  EXPECT_EQ(c.lines.false_negative, 0);
  EXPECT_EQ(c.files_only_truth, std::vector<std::string>{"b.c"});
  EXPECT_EQ(c.files_only_sampled, std::vector<std::string>{"c.c"});
  EXPECT_DOUBLE_EQ(c.lines.recall(), 1.0);
}

TEST(SampleCompare, ExcludedLinesAreLeftOut) {
  model::ProjectCov truth, sampled;
  truth.files = {file("a.c", {line(1, 1), line(2, 1)})};
  truth.files[0].lines[1].excluded = true;
  sampled.files = {file("a.c", {line(1, 1), line(2, 0)})};
  const Comparison c = compare_coverage(sampled, truth);
  EXPECT_EQ(c.lines.false_negative, 0);
  EXPECT_EQ(c.only_sampled, 1);
}

TEST(SampleCompare, JensenShannonKnownValues) {
  EXPECT_DOUBLE_EQ(jensen_shannon({1, 2, 3}, {2, 4, 6}), 0.0);  // same shape
  EXPECT_DOUBLE_EQ(jensen_shannon({1, 0}, {0, 1}), 1.0);        // disjoint
  // p = (1/2, 1/2), q = (1, 0): m = (3/4, 1/4);
  // JS = 1/2 [1/2 log2(2/3) + 1/2 log2(2)] + 1/2 [log2(4/3)] = 0.311278...
  EXPECT_NEAR(jensen_shannon({1, 1}, {1, 0}), 0.3112781244591328, 1e-12);
  EXPECT_DOUBLE_EQ(jensen_shannon({0, 0}, {1, 1}), 0.0);
}

TEST(SampleCompare, DivergenceComparesCountShapes) {
  model::ProjectCov truth, sampled;
  truth.files = {file("a.c", {line(1, 100), line(2, 100)})};
  sampled.files = {file("a.c", {line(1, 3), line(2, 3)})};
  EXPECT_DOUBLE_EQ(compare_coverage(sampled, truth).divergence, 0.0);
  sampled.files[0].lines[1].count = 0;
  EXPECT_NEAR(compare_coverage(sampled, truth).divergence, 0.3112781244591328, 1e-12);
}

}  // namespace
}  // namespace covkit::sample
