#pragma once
// Coverage of source files as a tracefile or a covkit JSON file states it,
// record by record, before any rule is applied: a line may be listed twice,
// a function named by several records (lcov's FN and FNDA), sources in any
// order. model::load_coverage_file turns records into the project model
// (sums, merges, sorting: lcov's rules live there, not in the readers).
#include <cstdint>
#include <string>
#include <vector>

namespace covkit::format {

struct BranchRecord {
  int64_t count = 0;
  bool executed = false;  // lcov's "-" is a branch whose line never ran
  bool is_throw = false;
  bool fallthrough = false;
  bool unreachable = false;
  uint32_t block = 0;  // lcov's block number (llvm-cov: the condition's pair on its line)
};

struct InstanceRecord {
  std::string function;  // mangled name of the instantiation
  int64_t count = 0;
};

struct LineRecord {
  uint32_t number = 0;
  int64_t count = 0;
  bool unexecuted_block = false;
  bool inferred = false;  // covkit sample: covered by inference only
  // Branches only, no line count: lcov's BRDA without a DA (llvm-cov writes
  // them for a condition on a line its line rules do not count).
  bool no_count = false;
  std::vector<BranchRecord> branches;  // in the order the file lists them
  std::vector<InstanceRecord> instances;
};

struct FunctionRecord {
  std::string name;  // mangled
  std::string demangled;
  // 0 = not stated by this record (lcov's FNDA names a function, not a place).
  uint32_t start_line = 0, start_column = 0, end_line = 0, end_column = 0;
  int64_t execution_count = 0;
  uint32_t blocks = 0, blocks_executed = 0;
  uint32_t regions = 0, regions_covered = 0;  // clang's source-based coverage
};

// A counted region of clang's source-based coverage.
struct RegionRecord {
  uint32_t line_start = 0, column_start = 0, line_end = 0, column_end = 0;
  int64_t count = 0;
};

struct SourceRecord {
  std::string path;
  std::string absolute_path;  // may be empty
  std::vector<LineRecord> lines;
  std::vector<FunctionRecord> functions;
  std::vector<RegionRecord> regions;
};

struct CoverageRecords {
  std::vector<SourceRecord> sources;
  std::vector<std::string> test_names;  // lcov's TN values, distinct, non-empty, in order of appearance
  std::vector<std::string> warnings;  // one line each, without the file name ("line 7: ...")
};

}  // namespace covkit::format
