#pragma once
// How close sampled coverage comes to the truth: the same program and
// workload measured with --coverage. Lines count only where both sides call
// them executable (optimization levels differ in what has code); a line
// covered by both is a true positive, by the sample alone a false positive,
// by the truth alone a miss. Recall = TP / (TP + FN), precision =
// TP / (TP + FP), per file, per function (the truth's line ranges) and in
// total. The divergence of execution frequencies is the Jensen-Shannon
// divergence (base 2: 0 same shape, 1 disjoint) between the two count
// distributions over the common lines.
#include <cstdint>
#include <string>
#include <vector>

#include "model/project_coverage.h"

namespace covkit::sample {

struct Agreement {
  int64_t true_positive = 0, false_positive = 0, false_negative = 0, true_negative = 0;
  double recall() const;     // 1 when the truth covers nothing
  double precision() const;  // 1 when the sample covers nothing
};

struct FunctionAgreement {
  std::string name;  // demangled when known
  uint32_t start_line = 0, end_line = 0;
  Agreement lines;
};

struct FileAgreement {
  std::string path;
  Agreement lines;
  int64_t only_sampled = 0, only_truth = 0;  // executable on one side only
  std::vector<FunctionAgreement> functions;
};

struct Comparison {
  Agreement lines;
  int64_t only_sampled = 0, only_truth = 0;
  double divergence = 0;  // Jensen-Shannon, base 2, over the common lines
  std::vector<FileAgreement> files;  // files on both sides, by path
  std::vector<std::string> files_only_sampled, files_only_truth;
};

// Files are matched by absolute path when both know it, else by path.
Comparison compare_coverage(const model::ProjectCov& sampled, const model::ProjectCov& truth);

// Jensen-Shannon divergence (base 2) of two non-negative weight vectors of
// the same length, each normalized to 1; 0 when either sums to 0.
double jensen_shannon(const std::vector<double>& p, const std::vector<double>& q);

}  // namespace covkit::sample
