#pragma once
// The project-wide coverage model that every report renders: per source file,
// its lines (count, branches), and its functions. It is tool-neutral: built
// from .gcno/.gcda objects (project_builder), read from lcov tracefiles or
// covkit JSON, or merged from several of those. Counts are exactly those
// `covkit gcov` computes (except that negative counts, from threads racing on
// counters, read as 0 per object, as lcov reads them); merging follows lcov's
// rules (sum per line, per branch position, per function name).
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace covkit::model {

struct BranchCov {
  int64_t count = 0;
  // Whether the line holding the branch ran (in any merged part). lcov shows
  // the branch of a line that never ran as "-" rather than 0.
  bool executed = false;
  bool is_throw = false;     // taken only when an exception is thrown
  bool fallthrough = false;  // the arc to the next block in source order
  bool unreachable = false;  // leaves a block reachable only through exception/noreturn arcs
  // lcov's block number (BRDA:line,block,branch): 0 from gcov; from clang's
  // source-based coverage, which condition of the line (two branches each,
  // true then false), as llvm-cov numbers them.
  uint32_t block = 0;
};

// One template instantiation's (or other group function's) count of a line,
// kept when instantiations are shown apart.
struct LineInstance {
  std::string function;  // mangled name
  int64_t count = 0;
};

// A line's instances (LineCov::instances): none on nearly every line (all
// of them unless instantiations are shown), so one pointer, not a vector's
// three words (zstd's report holds ~125,000 lines in its objects' copies and
// ~87,000 merged: ~5 MB of empty vectors, each page of them a fault).
class LineInstances {
 public:
  LineInstances() = default;
  LineInstances(std::initializer_list<LineInstance> list) {
    if (list.size()) list_ = std::make_unique<std::vector<LineInstance>>(list);
  }
  explicit LineInstances(std::vector<LineInstance>&& list) {
    if (!list.empty()) list_ = std::make_unique<std::vector<LineInstance>>(std::move(list));
  }
  LineInstances(const LineInstances& o) : list_(o.empty() ? nullptr : std::make_unique<std::vector<LineInstance>>(*o.list_)) {}
  LineInstances(LineInstances&&) noexcept = default;
  LineInstances& operator=(const LineInstances& o) {
    if (this != &o) list_ = o.empty() ? nullptr : std::make_unique<std::vector<LineInstance>>(*o.list_);
    return *this;
  }
  LineInstances& operator=(LineInstances&&) noexcept = default;

  bool empty() const { return !list_ || list_->empty(); }
  size_t size() const { return list_ ? list_->size() : 0; }
  LineInstance* begin() { return list_ ? list_->data() : nullptr; }
  LineInstance* end() { return list_ ? list_->data() + list_->size() : nullptr; }
  const LineInstance* begin() const { return list_ ? list_->data() : nullptr; }
  const LineInstance* end() const { return list_ ? list_->data() + list_->size() : nullptr; }
  LineInstance& operator[](size_t i) { return (*list_)[i]; }
  const LineInstance& operator[](size_t i) const { return (*list_)[i]; }
  void push_back(LineInstance i) { grown().push_back(std::move(i)); }
  void reserve(size_t n) {
    if (n) grown().reserve(n);
  }
  void clear() { list_.reset(); }
  template <typename Pred>
  void erase_if(Pred&& pred) {
    if (list_) std::erase_if(*list_, std::forward<Pred>(pred));
  }

 private:
  std::vector<LineInstance>& grown() {
    if (!list_) list_ = std::make_unique<std::vector<LineInstance>>();
    return *list_;
  }
  std::unique_ptr<std::vector<LineInstance>> list_;
};

// The number and the flags share a word, the instances are a pointer (48
// bytes a line, not 72: a 1 GB tracefile holds ~80 M lines).
struct LineCov {
  uint32_t number = 0;
  bool unexecuted_block = false;  // gcov's '*': some block on the line never ran
  // Covered only by inference (covkit sample: a dominator or post-dominator
  // of an observed block), never observed itself. Reports show it when asked.
  bool inferred = false;
  // Excluded lines (markers, --diff, ...) stay in the model so that the HTML
  // can show them as excluded; every writer and every total skips them.
  bool excluded = false;
  // Branches only: no line count (clang's line rules count no line here
  // though a condition starts on it; llvm-cov writes BRDA and no DA). Such a
  // line is not a line of the totals, the tracefile's DA or the lists of
  // lines; its branches count as any others.
  bool no_count = false;
  int64_t count = 0;
  std::vector<BranchCov> branches;  // already stripped of excluded branches
  LineInstances instances;

  bool covered() const { return count > 0; }
};

struct FunctionCov {
  std::string name;       // mangled, as in the notes file (lcov's FN name)
  std::string demangled;  // as gcov -m prints it
  uint32_t start_line = 0, start_column = 0, end_line = 0, end_column = 0;
  int64_t execution_count = 0;
  uint32_t blocks = 0, blocks_executed = 0;
  // Clang's source-based coverage: the function's code regions (its macro
  // expansions' too) and those that ran. Instantiations of one template
  // (functions starting at the same line and column) count as one, with
  // the most of either, as llvm-cov counts them.
  uint32_t regions = 0, regions_covered = 0;
  bool excluded = false;  // its first line is excluded

  bool covered() const { return execution_count > 0; }
};

// A counted region of clang's source-based coverage: a range of code that
// ran `count` times (regions of one range added up, template
// instantiations and objects alike). Finer than lines: what ran of a line.
struct RegionCov {
  uint32_t line_start = 0, column_start = 0, line_end = 0, column_end = 0;
  int64_t count = 0;
};

struct FileCov {
  std::string path;  // as reports show it: relative to the root when inside it
  std::string absolute_path;  // where the source was found (may not exist)
  std::vector<LineCov> lines;          // sorted by number, one entry per number
  std::vector<FunctionCov> functions;  // sorted by start line, then name
  std::vector<RegionCov> regions;      // sorted by start then end; empty for gcov's data

  LineCov* find_line(uint32_t number);
  const LineCov* find_line(uint32_t number) const;
};

struct ProjectCov {
  std::vector<FileCov> files;  // sorted by path, one entry per path
  // The test names (lcov's TN) of the tracefiles read, distinct, in order:
  // what a merged tracefile is named after when all agree.
  std::vector<std::string> test_names;
};

struct Totals {
  int64_t lines = 0, lines_covered = 0;
  int64_t functions = 0, functions_covered = 0;
  int64_t branches = 0, branches_covered = 0;
  int64_t regions = 0, regions_covered = 0;  // clang's source-based coverage only

  Totals& operator+=(const Totals& o);
};

Totals totals(const FileCov& f);
// The lines and branches of some lines of a file (a function's range).
Totals totals(std::span<const LineCov> lines);
Totals totals(const ProjectCov& p);

// Percentage with one rule everywhere (an empty set is 100%, as gcovr and
// genhtml show it); `ratio` is covered/total in [0, 1].
double percent(int64_t covered, int64_t total);

}  // namespace covkit::model
