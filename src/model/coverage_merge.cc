#include "model/coverage_merge.h"

#include <algorithm>
#include <iterator>
#include <span>
#include <string_view>
#include <tuple>
#include <unordered_map>
#include <utility>

#include "model/counts.h"
#include "util/thread_pool.h"

namespace covkit::model {

namespace {

void merge_branches(std::vector<BranchCov>& into, std::vector<BranchCov>&& from) {
  if (into.size() < from.size()) into.resize(from.size());
  for (size_t i = 0; i < from.size(); ++i) {
    BranchCov& b = into[i];
    b.count = add_report_counts(b.count, from[i].count);
    b.executed |= from[i].executed;
    b.is_throw |= from[i].is_throw;
    b.fallthrough |= from[i].fallthrough;
    b.unreachable |= from[i].unreachable;
  }
}

void merge_line(LineCov& into, LineCov&& from) {
  // Inferred only while no part observed it: a part that covered the line
  // without inference wins; a part that did not cover it says nothing.
  if (from.covered() && !from.inferred)
    into.inferred = false;
  else if (!into.covered() && from.covered())
    into.inferred = from.inferred;
  into.count = add_report_counts(into.count, from.count);
  into.excluded |= from.excluded;
  into.no_count = into.no_count && from.no_count;  // a part that counts the line makes it a line
  // '*' means some block never ran: after merging, only if the line as a whole
  // still has zero count anywhere we cannot tell; keep gcov's per-part flag.
  into.unexecuted_block = into.unexecuted_block || from.unexecuted_block;
  merge_branches(into.branches, std::move(from.branches));
  for (LineInstance& inst : from.instances) {
    auto it = std::find_if(into.instances.begin(), into.instances.end(),
                           [&](const LineInstance& i) { return i.function == inst.function; });
    if (it == into.instances.end())
      into.instances.push_back(std::move(inst));
    else
      it->count = add_report_counts(it->count, inst.count);
  }
}

void merge_function(FunctionCov& into, FunctionCov&& from) {
  into.execution_count = add_report_counts(into.execution_count, from.execution_count);
  into.blocks = std::max(into.blocks, from.blocks);
  into.blocks_executed = std::max(into.blocks_executed, from.blocks_executed);
  into.regions = std::max(into.regions, from.regions);
  into.regions_covered = std::max(into.regions_covered, from.regions_covered);
  into.excluded |= from.excluded;
  if (into.demangled.empty()) into.demangled = std::move(from.demangled);
  // A record that named the function without its place (lcov's FNDA) takes
  // the place from the first one that has it.
  if (into.start_line == 0) {
    into.start_line = from.start_line;
    into.start_column = from.start_column;
  }
  if (into.end_line == 0) {
    into.end_line = from.end_line;
    into.end_column = from.end_column;
  }
}

// Lines in any order, numbers no larger than a few times their count (the
// copies of one source appended one after another): each line merged into
// the first of its number in the order they come, as a stable sort and a
// fold would merge them, without sorting or moving 64-byte lines around.
void merge_lines_by_number(std::vector<LineCov>& lines, uint32_t largest) {
  constexpr uint32_t kNone = UINT32_MAX;
  std::vector<uint32_t> first(size_t(largest) + 1, kNone);
  size_t distinct = 0;
  for (size_t i = 0; i < lines.size(); ++i) {
    uint32_t& at = first[lines[i].number];
    if (at == kNone) {
      at = uint32_t(i);
      ++distinct;
    } else {
      merge_line(lines[at], std::move(lines[i]));
    }
  }
  std::vector<LineCov> merged;
  merged.reserve(distinct);
  for (uint32_t at : first)
    if (at != kNone) merged.push_back(std::move(lines[at]));
  lines = std::move(merged);
}

// The lines of one source's copies (a header seen by many objects), as
// normalize() would leave them after append_file() of each copy into the
// first: each number's first line in the copies' order, the later ones of
// that number merged into it in order. Done straight from the copies: the
// appended list (and its growth, a copy of every line per doubling, onto
// fresh pages) was most of a report's merging.
// False, with nothing done, when the numbers are too sparse for a table of
// them (as normalize() then sorts).
bool merge_copies_lines(std::span<FileCov> copies) {
  constexpr uint32_t kNone = UINT32_MAX;
  struct At {
    uint32_t copy = kNone, index = 0;
  };
  uint32_t largest = 0;
  size_t all = 0;
  for (const FileCov& c : copies) {
    for (const LineCov& l : c.lines) largest = std::max(largest, l.number);
    all += c.lines.size();
  }
  if (largest / 4 > all + 1024) return false;
  std::vector<At> first(size_t(largest) + 1);
  size_t distinct = 0;
  for (size_t c = 0; c < copies.size(); ++c)
    for (size_t i = 0; i < copies[c].lines.size(); ++i) {
      LineCov& l = copies[c].lines[i];
      At& at = first[l.number];
      if (at.copy == kNone) {
        at = {uint32_t(c), uint32_t(i)};
        ++distinct;
      } else {
        merge_line(copies[at.copy].lines[at.index], std::move(l));
      }
    }
  std::vector<LineCov> merged;
  merged.reserve(distinct);
  for (const At& at : first)
    if (at.copy != kNone) merged.push_back(std::move(copies[at.copy].lines[at.index]));
  copies[0].lines = std::move(merged);
  return true;
}

// Functions and regions of a file whose lines are in order and merged.
void normalize_functions_and_regions(FileCov& f);

}  // namespace

void normalize(FileCov& f) {
  // Mostly sorted already (a reader's one record, a file normalized before):
  // checked first, a sort then costs nothing (a 1 GB tracefile is 80 M lines).
  auto by_number = [](const LineCov& a, const LineCov& b) { return a.number < b.number; };
  if (!std::is_sorted(f.lines.begin(), f.lines.end(), by_number)) {
    uint32_t largest = 0;
    for (const LineCov& l : f.lines) largest = std::max(largest, l.number);
    if (largest / 4 <= f.lines.size() + 1024) {
      merge_lines_by_number(f.lines, largest);
    } else {
      std::stable_sort(f.lines.begin(), f.lines.end(), by_number);
    }
  }
  size_t out = 0;
  for (size_t i = 0; i < f.lines.size(); ++i) {
    if (out > 0 && f.lines[out - 1].number == f.lines[i].number)
      merge_line(f.lines[out - 1], std::move(f.lines[i]));
    else if (out != i)
      f.lines[out++] = std::move(f.lines[i]);
    else
      ++out;
  }
  f.lines.resize(out);
  normalize_functions_and_regions(f);
}

namespace {

void normalize_functions_and_regions(FileCov& f) {
  // Functions merge by name; the first occurrence keeps its place. Clang's
  // builds of one name at different places (#if'ed variants of a function)
  // stay apart, as llvm-cov keeps them, so each keeps its regions. Each
  // name's entries are chained in the order they came (a stable sort by
  // name, then a fold, did the same with a string compare per step: a
  // header's copies from many objects are thousands of functions).
  auto same_function = [](const FunctionCov& a, const FunctionCov& b) {
    return a.name == b.name && (a.regions == 0 || b.regions == 0 || a.start_line == 0 || b.start_line == 0 ||
                                (a.start_line == b.start_line && a.start_column == b.start_column));
  };
  constexpr uint32_t kEnd = UINT32_MAX;
  struct Chain {
    uint32_t first, last;
  };
  std::vector<FunctionCov> merged;
  merged.reserve(f.functions.size());  // never moved: the keys view their names
  std::vector<uint32_t> next;          // the entry of the same name after each, or kEnd
  next.reserve(f.functions.size());
  std::unordered_map<std::string_view, Chain> chains;
  chains.reserve(f.functions.size());
  for (FunctionCov& fn : f.functions) {
    auto chain = chains.find(fn.name);
    uint32_t at = chain == chains.end() ? kEnd : chain->second.first;
    while (at != kEnd && !same_function(merged[at], fn)) at = next[at];
    if (at != kEnd) {
      merge_function(merged[at], std::move(fn));
      continue;
    }
    merged.push_back(std::move(fn));
    next.push_back(kEnd);
    const uint32_t added = uint32_t(merged.size() - 1);
    if (chain == chains.end()) {
      chains.emplace(std::string_view(merged.back().name), Chain{added, added});
    } else {
      next[chain->second.last] = added;
      chain->second.last = added;
    }
  }
  f.functions = std::move(merged);
  std::stable_sort(f.functions.begin(), f.functions.end(), [](const FunctionCov& a, const FunctionCov& b) {
    return a.start_line != b.start_line ? a.start_line < b.start_line : a.name < b.name;
  });

  // Regions of one range add up (instantiations, objects, runs).
  auto range = [](const RegionCov& r) { return std::tie(r.line_start, r.column_start, r.line_end, r.column_end); };
  std::stable_sort(f.regions.begin(), f.regions.end(),
                   [&](const RegionCov& a, const RegionCov& b) { return range(a) < range(b); });
  size_t out = 0;
  for (size_t i = 0; i < f.regions.size(); ++i) {
    if (out > 0 && range(f.regions[out - 1]) == range(f.regions[i]))
      f.regions[out - 1].count = add_report_counts(f.regions[out - 1].count, f.regions[i].count);
    else
      f.regions[out++] = f.regions[i];
  }
  f.regions.resize(out);
}

}  // namespace

void append_file(FileCov& into, FileCov&& from) {
  if (into.absolute_path.empty()) into.absolute_path = std::move(from.absolute_path);
  into.lines.insert(into.lines.end(), std::make_move_iterator(from.lines.begin()),
                    std::make_move_iterator(from.lines.end()));
  into.functions.insert(into.functions.end(), std::make_move_iterator(from.functions.begin()),
                        std::make_move_iterator(from.functions.end()));
  into.regions.insert(into.regions.end(), from.regions.begin(), from.regions.end());
}

void merge_file(FileCov& into, FileCov&& from) {
  append_file(into, std::move(from));
  normalize(into);
}

void normalize(ProjectCov& p, unsigned threads) {
  // One entry per source: two sources may be displayed under one name
  // (--source-prefix), so the absolute path decides (when both have one).
  std::stable_sort(p.files.begin(), p.files.end(), [](const FileCov& a, const FileCov& b) {
    return a.path != b.path ? a.path < b.path : a.absolute_path < b.absolute_path;
  });
  // `absolute`: the group's absolute path so far (its first copy's, else the
  // first a later copy brought, as append_file gives it to the first).
  auto same = [](const FileCov& first, const std::string& absolute, const FileCov& b) {
    return first.path == b.path && (absolute == b.absolute_path || absolute.empty() || b.absolute_path.empty());
  };
  // Every copy of a source (a header seen by k objects) is appended to the
  // first and the whole is normalized once: normalizing after each append
  // sorted a growing list k times, quadratic in the objects sharing a header.
  // The lines and functions of each copy stay in order, so the merge folds
  // them in the same order as one merge_file after another would.
  // Each group of copies is merged on the threads, its lines straight from
  // the copies (merge_copies_lines), then the groups' firsts close up.
  std::vector<size_t> group_start;
  const std::string* absolute = nullptr;
  for (size_t i = 0; i < p.files.size(); ++i) {
    if (i == 0 || !same(p.files[group_start.back()], *absolute, p.files[i])) {
      group_start.push_back(i);
      absolute = &p.files[i].absolute_path;
    } else if (absolute->empty()) {
      absolute = &p.files[i].absolute_path;
    }
  }
  group_start.push_back(p.files.size());
  util::parallel_for(group_start.size() - 1, threads, [&](size_t g) {
    const std::span<FileCov> copies(p.files.data() + group_start[g], group_start[g + 1] - group_start[g]);
    FileCov& into = copies[0];
    if (copies.size() == 1) {
      normalize(into);
      return;
    }
    if (!merge_copies_lines(copies)) {
      for (size_t c = 1; c < copies.size(); ++c) append_file(into, std::move(copies[c]));
      normalize(into);
      return;
    }
    size_t functions = 0, regions = 0;
    for (const FileCov& c : copies) {
      functions += c.functions.size();
      regions += c.regions.size();
    }
    into.functions.reserve(functions);
    into.regions.reserve(regions);
    for (size_t c = 1; c < copies.size(); ++c) {
      FileCov& from = copies[c];
      if (into.absolute_path.empty()) into.absolute_path = std::move(from.absolute_path);
      into.functions.insert(into.functions.end(), std::make_move_iterator(from.functions.begin()),
                            std::make_move_iterator(from.functions.end()));
      into.regions.insert(into.regions.end(), from.regions.begin(), from.regions.end());
    }
    normalize_functions_and_regions(into);
  });
  size_t out = 0;
  for (size_t g = 0; g + 1 < group_start.size(); ++g, ++out)
    if (out != group_start[g]) p.files[out] = std::move(p.files[group_start[g]]);
  p.files.resize(out);
  // Different sources left with one displayed name are shown by their
  // absolute paths, so no report (or HTML page name) confuses them.
  bool renamed = false;
  for (size_t i = 1; i < p.files.size(); ++i) {
    if (p.files[i - 1].path != p.files[i].path) continue;
    for (FileCov* f : {&p.files[i - 1], &p.files[i]})
      if (!f->absolute_path.empty() && f->path != f->absolute_path) {
        f->path = f->absolute_path;
        renamed = true;
      }
  }
  if (renamed)
    std::stable_sort(p.files.begin(), p.files.end(), [](const FileCov& a, const FileCov& b) {
      return a.path != b.path ? a.path < b.path : a.absolute_path < b.absolute_path;
    });
}

void merge_project(ProjectCov& into, ProjectCov&& from, unsigned threads) {
  for (FileCov& f : from.files) into.files.push_back(std::move(f));
  for (std::string& t : from.test_names)
    if (std::find(into.test_names.begin(), into.test_names.end(), t) == into.test_names.end())
      into.test_names.push_back(std::move(t));
  normalize(into, threads);
}

void drop_files_without_lines(ProjectCov& p) {
  std::erase_if(p.files, [](const FileCov& f) { return f.lines.empty(); });
}

}  // namespace covkit::model
