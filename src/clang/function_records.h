#pragma once
// Coverage mappings with their counts: each function's regions evaluated
// against the merged profile, by llvm-cov's rules (CoverageMapping::load):
// a function whose profile record has another hash is left out and said
// (its binary and the profile come from different builds); one absent from
// the profile counts zero; a unit's "dummy" record of a function another
// unit used is ignored when the profile has counts for it; and a function
// seen again with the same file list (a second binary sharing a source) is
// taken once, since the profile already adds its runs up.
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "clang/coverage_mapping.h"
#include "clang/profile_counts.h"

namespace covkit::clang {

struct CountedRegion : MappingRegion {
  uint64_t execution_count = 0;
  uint64_t false_execution_count = 0;  // branch regions
  bool folded = false;                 // a branch both of whose counters are the constant zero
};

struct FunctionRecord {
  std::string name;  // the PGO name without its "file:" prefix when the file is its first one
  std::vector<std::string> filenames;
  // In mapping order, which is by file id (coverage_views finds a file id's
  // regions by binary search).
  std::vector<CountedRegion> regions;   // every kind but branches
  std::vector<CountedRegion> branches;  // branch regions
  uint64_t execution_count = 0;         // the first region's count
  // main_file_id's answer, found once when the record is made (each file
  // the function touches asks it again).
  std::optional<uint32_t> main_file;
  // Per file id, its file's number in the set (CoverageSet::file_key): a
  // file's view compares numbers, not names, for each file id of each of
  // the thousands of functions that touch a header.
  std::vector<uint32_t> file_keys;
  // Where each file id's regions and branches start (one more entry than
  // file ids): a file id's run found without a search.
  std::vector<uint32_t> region_at, branch_at;

  std::span<const CountedRegion> regions_of(uint32_t file_id) const { return run(regions, region_at, file_id); }
  std::span<const CountedRegion> branches_of(uint32_t file_id) const { return run(branches, branch_at, file_id); }

 private:
  static std::span<const CountedRegion> run(const std::vector<CountedRegion>& v, const std::vector<uint32_t>& at,
                                            uint32_t id) {
    if (size_t(id) + 1 >= at.size()) return {};
    return std::span<const CountedRegion>(v).subspan(at[id], at[id + 1] - at[id]);
  }
};

struct MismatchedFunction {
  std::string name;  // PGO name
  uint64_t hash = 0;
};

class CoverageSet {
 public:
  // Adds one binary's functions (in mapping order).
  void add(const std::vector<FunctionMapping>& functions, const ProfileCounts& profile,
           std::vector<MismatchedFunction>& mismatched);
  // The same, of functions decoded once for several binaries: a function
  // given again (the same object: it must stay alive and unchanged while
  // the set is filled, against the same profile) is taken already or left
  // out again, and only its mismatch is said again.
  void add(const std::vector<const FunctionMapping*>& functions, const ProfileCounts& profile,
           std::vector<MismatchedFunction>& mismatched);

  const std::vector<FunctionRecord>& functions() const { return functions_; }
  // The records that touch `filename`, in load order.
  const std::vector<size_t>& records_of(const std::string& filename) const;
  // The number FunctionRecord::file_keys gives `filename`, if a function
  // touches it.
  std::optional<uint32_t> file_key(const std::string& filename) const;
  // Every file any function touches, sorted, once.
  std::vector<std::string> source_files() const;

 private:
  void add_each(const std::vector<const FunctionMapping*>& functions, const ProfileCounts& profile,
                std::vector<MismatchedFunction>& mismatched, bool remember);
  // Whether a function of this name and file list was taken already.
  bool taken(const std::vector<std::string>& filenames, const std::string& name, uint64_t key) const;

  std::vector<FunctionRecord> functions_;
  // The functions taken, by a hash of their file list and name (compared
  // in full on a hit): most functions of a second binary that shares
  // sources with the first are known, and said so before being counted.
  std::unordered_map<uint64_t, std::vector<size_t>> taken_;
  // The functions given by pointer so far, and whether each was mismatched.
  std::unordered_map<const FunctionMapping*, bool> given_;
  const ProfileCounts* given_profile_ = nullptr;
  // Files by name: their key (index in by_key_).
  std::unordered_map<std::string, uint32_t> keys_;
  std::vector<std::vector<size_t>> by_key_;  // the records that touch each file
};

// Counters evaluated against one function's counts: nullopt when one
// refers to a counter or expression that does not exist (llvm-cov then
// drops the function silently). Arithmetic wraps as llvm-cov's int64 does.
class ExpressionValues {
 public:
  ExpressionValues(const std::vector<CounterExpression>& expressions, const std::vector<uint64_t>& counts)
      : expressions_(expressions), counts_(&counts), size_(counts.size()) {}
  // Against `size` counters that are all zero (a function the profile
  // does not have), without allocating them.
  ExpressionValues(const std::vector<CounterExpression>& expressions, uint64_t size)
      : expressions_(expressions), size_(size) {}
  std::optional<uint64_t> evaluate(const Counter& c);

 private:
  const std::vector<CounterExpression>& expressions_;
  const std::vector<uint64_t>* counts_ = nullptr;
  uint64_t size_ = 0;
  std::vector<uint8_t> state_;
  std::vector<uint64_t> value_;
  std::vector<uint32_t> stack_;
};

}  // namespace covkit::clang
