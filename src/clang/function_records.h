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
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "clang/coverage_mapping.h"
#include "clang/profile_counts.h"

namespace covkit::clang {

// A region with its counts (and without the counters they came from: 48
// bytes, not 72; a report holds hundreds of thousands, and sorts a
// header's many thousands).
struct CountedRegion {
  uint32_t line_start = 0, column_start = 0, line_end = 0, column_end = 0;
  uint32_t file_id = 0;
  uint32_t expanded_file_id = 0;  // expansion regions only
  uint64_t execution_count = 0;
  uint64_t false_execution_count = 0;  // branch regions
  RegionKind kind = RegionKind::kCode;
  bool folded = false;  // a branch both of whose counters are the constant zero
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

// A function's mapping counted against the profile: all CoverageSet::add
// decides of it that does not depend on the functions added before it, so
// that it can be made on any thread (a report of 17 programs counts 10,000
// distinct functions; only whether one like it was taken already needs
// their order).
struct CountedFunction {
  enum class Outcome : uint8_t {
    kNoRegions,   // nothing to count: skipped
    kMismatched,  // the profile's record has another hash: left out and said
    kUnused,      // a dummy of a function that ran elsewhere, or a counter that does not exist: skipped
    kCounted,     // `record` holds it, unless taken by a function like it before
  };
  Outcome outcome = Outcome::kNoRegions;
  std::string pgo_name;  // for the mismatch said
  uint64_t hash = 0;
  uint64_t key = 0;  // of the record's name and file list
  // Each file name's hash, as the key hashed it: CoverageSet::add finds
  // the files' numbers without hashing the names again (38,000 paths of
  // ~100 bytes for a report of 17 programs, on the thread that takes them
  // in order).
  std::vector<size_t> file_hashes;
  FunctionRecord record;  // kCounted: every field but file_keys
  // Set by CoverageSet::add the first time it is given: given again (a
  // function several binaries share), it is taken already or left out
  // again, and only its mismatch is said again.
  bool given = false;
};
// `rule`: which llvm-cov's idea of a mismatch (ProfileCounts::MismatchRule).
CountedFunction count_function(const FunctionMapping& m, const ProfileCounts& profile,
                               ProfileCounts::MismatchRule rule = ProfileCounts::MismatchRule::kSameContextFlag);
// The same, the record taking m's file names instead of a copy (a report
// decodes 10,000 functions into one reused mapping, each counted once).
CountedFunction count_function(FunctionMapping&& m, const ProfileCounts& profile,
                               ProfileCounts::MismatchRule rule = ProfileCounts::MismatchRule::kSameContextFlag);

class CoverageSet {
 public:
  // Room for `functions` records in all (a record is ~200 bytes: growing
  // the set binary by binary moved and faulted them in again).
  void reserve(size_t functions) { functions_.reserve(functions); }
  // Adds one binary's functions (in mapping order).
  void add(const std::vector<FunctionMapping>& functions, const ProfileCounts& profile,
           std::vector<MismatchedFunction>& mismatched);
  // The same, of functions counted already (count_function), in mapping
  // order; a counted record taken is moved into the set.
  void add(const std::vector<CountedFunction*>& functions, std::vector<MismatchedFunction>& mismatched);

  const std::vector<FunctionRecord>& functions() const { return functions_; }
  // The records that touch `filename`, in load order.
  const std::vector<size_t>& records_of(const std::string& filename) const;
  // The number FunctionRecord::file_keys gives `filename`, if a function
  // touches it.
  std::optional<uint32_t> file_key(const std::string& filename) const;
  // Every file any function touches, sorted, once.
  std::vector<std::string> source_files() const;

  // Empties the set, its records freed on up to `threads` threads: a
  // report's set holds tens of thousands of vectors and strings, and
  // freeing them on one thread (2% of a zstd report) kept the other cores
  // waiting.
  void clear(unsigned threads);

 private:
  // Whether a function of this name and file list was taken already.
  bool taken(const std::vector<std::string>& filenames, const std::string& name, uint64_t key) const;

  std::vector<FunctionRecord> functions_;
  static constexpr uint32_t kNone = UINT32_MAX;
  // The functions taken, by a hash of their file list and name (compared
  // in full on a hit): most functions of a second binary that shares
  // sources with the first are known, and said so before being counted.
  // Each key's first record, the others chained through next_taken_ (a
  // vector per key was an allocation per function).
  std::unordered_map<uint64_t, uint32_t> taken_;
  std::vector<uint32_t> next_taken_;  // per record
  // A file name with its hash given (CountedFunction::file_hashes): found
  // without hashing it again.
  struct HashedName {
    std::string_view name;
    size_t hash;
  };
  struct NameHash {
    using is_transparent = void;
    size_t operator()(const std::string& s) const { return std::hash<std::string_view>{}(s); }
    size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
    size_t operator()(const HashedName& h) const { return h.hash; }
  };
  struct NameEqual {
    using is_transparent = void;
    static std::string_view view(const std::string& s) { return s; }
    static std::string_view view(std::string_view s) { return s; }
    static std::string_view view(const HashedName& h) { return h.name; }
    template <typename A, typename B>
    bool operator()(const A& a, const B& b) const {
      return view(a) == view(b);
    }
  };
  // Files by name: their key (index in by_key_).
  std::unordered_map<std::string, uint32_t, NameHash, NameEqual> keys_;
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
