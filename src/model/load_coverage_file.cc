#include "model/load_coverage_file.h"

#include <fmt/format.h>

#include <algorithm>
#include <functional>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <utility>

#include "format/covkit_json_reader.h"
#include "format/coverage_file_format.h"
#include "format/lcov_tracefile_reader.h"
#include "format/object_files.h"
#include "model/coverage_merge.h"
#include "util/file_io.h"
#include "util/foreign_data.h"
#include "util/printable.h"

namespace covkit::model {

namespace {

BranchCov to_model(const format::BranchRecord& r) {
  BranchCov b;
  b.count = r.count;
  b.executed = r.executed;
  b.is_throw = r.is_throw;
  b.fallthrough = r.fallthrough;
  b.unreachable = r.unreachable;
  b.block = r.block;
  return b;
}

LineCov to_model(format::LineRecord&& r) {
  LineCov l;
  l.number = r.number;
  l.count = r.count;
  l.unexecuted_block = r.unexecuted_block;
  l.inferred = r.inferred;
  l.no_count = r.no_count;
  l.branches.reserve(r.branches.size());
  for (const auto& b : r.branches) l.branches.push_back(to_model(b));
  l.instances.reserve(r.instances.size());
  for (auto& i : r.instances) l.instances.push_back(LineInstance{std::move(i.function), i.count});
  return l;
}

FunctionCov to_model(format::FunctionRecord&& r) {
  FunctionCov f;
  f.name = std::move(r.name);
  f.demangled = std::move(r.demangled);
  f.start_line = r.start_line;
  f.start_column = r.start_column;
  f.end_line = r.end_line;
  f.end_column = r.end_column;
  f.execution_count = r.execution_count;
  f.blocks = r.blocks;
  f.blocks_executed = r.blocks_executed;
  f.regions = r.regions;
  f.regions_covered = r.regions_covered;
  return f;
}

// One source's records into the model's file, each record's memory given
// back as it is copied: only one source's records exist beside the model.
FileCov to_model(format::SourceRecord&& s) {
  FileCov f;
  f.path = std::move(s.path);
  f.absolute_path = std::move(s.absolute_path);
  f.lines.reserve(s.lines.size());
  for (auto& l : s.lines) f.lines.push_back(to_model(std::move(l)));
  std::vector<format::LineRecord>().swap(s.lines);
  f.functions.reserve(s.functions.size());
  for (auto& fn : s.functions) f.functions.push_back(to_model(std::move(fn)));
  std::vector<format::FunctionRecord>().swap(s.functions);
  f.regions.reserve(s.regions.size());
  for (const format::RegionRecord& r : s.regions)
    f.regions.push_back(RegionCov{r.line_start, r.column_start, r.line_end, r.column_end, r.count});
  std::vector<format::RegionRecord>().swap(s.regions);
  return f;
}

}  // namespace

ProjectCov to_model(format::CoverageRecords&& records) {
  ProjectCov p;
  p.files.reserve(records.sources.size());
  for (format::SourceRecord& s : records.sources) p.files.push_back(to_model(std::move(s)));
  records.sources.clear();
  p.test_names = std::move(records.test_names);
  normalize(p);
  return p;
}

namespace {

// Adds files to a project one at a time, as a reader hands them over: the
// copy of a source already there is appended to it and folded in once the
// appended lines are as many as those folded (so each line is sorted a
// bounded number of times), never all kept beside the project until the
// end. What merge_project does for a whole file read first, in a fraction of
// the memory: a 1 GB tracefile added to another held ~2x the model.
class ProjectAdder {
 public:
  explicit ProjectAdder(ProjectCov& into) : into_(into) {
    for (size_t i = 0; i < into.files.size(); ++i) index_[into.files[i].path].push_back(i);
    folded_.resize(into.files.size());
    for (size_t i = 0; i < into.files.size(); ++i) folded_[i] = size(into.files[i]);
    appended_.resize(into.files.size(), 0);
  }

  // lcov reads a tracefile's records of one source into one entry and, if
  // none of them holds a line count (DA), leaves the source out of that
  // tracefile, functions and branches too (lcov 1.16 writes such a record
  // for a header whose only functions are implicit members clang gives no
  // lines). So a record without one is held until the source's first record
  // with one in this tracefile (then added before it, in their order) or
  // the file's end (then dropped): per tracefile, not per project, as
  // `lcov -a a.info -a b.info` drops b's records of x.c without DA even
  // when a.info gave x.c lines.
  void add(FileCov&& f) {
    const bool counted = std::any_of(f.lines.begin(), f.lines.end(), [](const LineCov& l) { return !l.no_count; });
    std::string key = f.path + '\0' + f.absolute_path;
    if (!counted) {
      if (!counted_.count(key)) {
        held_[std::move(key)].push_back(std::move(f));
        return;
      }
    } else if (counted_.insert(key).second) {
      if (auto held = held_.find(key); held != held_.end()) {
        for (FileCov& earlier : held->second) add_record(std::move(earlier));
        held_.erase(held);
      }
    }
    add_record(std::move(f));
  }

  void finish(std::vector<std::string>&& test_names) {
    held_.clear();  // sources with no line count in this tracefile
    for (std::string& t : test_names)
      if (std::find(into_.test_names.begin(), into_.test_names.end(), t) == into_.test_names.end())
        into_.test_names.push_back(std::move(t));
    take_later_function_lines();  // before normalize(), which merges by name and sorts by line
    normalize(into_);
  }

 private:
  void add_record(FileCov&& f) {
    note_function_lines(f);
    std::vector<size_t>& same_path = index_[f.path];
    for (size_t i : same_path) {
      FileCov& at = into_.files[i];
      if (at.absolute_path != f.absolute_path) continue;
      appended_[i] += size(f);
      append_file(at, std::move(f));
      if (appended_[i] >= folded_[i]) {
        normalize(at);
        // The append doubled the lines' room, the fold halved their number:
        // kept so, a tracefile added to another held twice the lines' memory.
        if (at.lines.capacity() > at.lines.size() + at.lines.size() / 4) at.lines.shrink_to_fit();
        if (at.functions.capacity() > at.functions.size() + at.functions.size() / 4) at.functions.shrink_to_fit();
        folded_[i] = size(at);
        appended_[i] = 0;
      }
      return;
    }
    // A new source (or one whose absolute path differs: normalize() below
    // decides whether they are one, as it always did).
    same_path.push_back(into_.files.size());
    folded_.push_back(0);
    appended_.push_back(size(f));
    into_.files.push_back(std::move(f));
  }

  static size_t size(const FileCov& f) { return f.lines.size() + f.functions.size() + f.regions.size(); }
  static uint64_t name_key(const std::string& name) { return std::hash<std::string_view>()(name); }

  // lcov reads the records of one source in a tracefile into one entry, a
  // later FN line of a name replacing the earlier one (a source built twice
  // with other #ifs: zstd's pool.c); across tracefiles (lcov -a) the first
  // file's line stays. Noted per source: the names the project had before
  // this file, and the lines of the records after the source's first.
  struct LaterLines {
    std::unordered_set<uint64_t> before;
    std::unordered_map<uint64_t, uint32_t> line;
  };

  void note_function_lines(const FileCov& f) {
    auto [it, first] = later_.try_emplace(f.path);
    LaterLines& l = it->second;
    if (first) {
      for (size_t i : index_[f.path])
        for (const FunctionCov& fn : into_.files[i].functions) l.before.insert(name_key(fn.name));
      return;
    }
    for (const FunctionCov& fn : f.functions)
      if (fn.start_line) l.line[name_key(fn.name)] = fn.start_line;  // 0: a count (FNDA) without its FN
  }

  // Every entry of such a name takes the later line (the source's entries
  // are not all folded yet), so the one normalize() keeps has it.
  void take_later_function_lines() {
    for (FileCov& f : into_.files) {
      auto it = later_.find(f.path);
      if (it == later_.end() || it->second.line.empty()) continue;
      const LaterLines& l = it->second;
      for (FunctionCov& fn : f.functions) {
        const uint64_t key = name_key(fn.name);
        auto later = l.line.find(key);
        if (later != l.line.end() && !l.before.count(key)) fn.start_line = later->second;
      }
    }
  }

  ProjectCov& into_;
  std::unordered_set<std::string> counted_;  // sources with a line count in this tracefile
  std::unordered_map<std::string, std::vector<FileCov>> held_;  // records of the others
  std::unordered_map<std::string, std::vector<size_t>> index_;  // path -> its entries in into_.files
  std::vector<size_t> folded_;    // entries (lines, functions, regions) of each file already added up
  std::vector<size_t> appended_;  // entries appended to it since
  std::unordered_map<std::string, LaterLines> later_;  // by path, each source of this file
};

// Reads the coverage file at `path` and hands each source to `add` as a
// model file, as soon as it is read (an lcov tracefile) or once the whole
// file is (covkit JSON). Its test names go to `test_names`.
Expected<void> read_coverage_file(const std::string& path, const std::function<void(FileCov&&)>& add,
                                  std::vector<std::string>& test_names, std::vector<std::string>& warnings) {
  auto data = util::read_input_file(path);
  if (!data) return data.error();
  util::note_data_file(path, *data);  // another user's tracefile names sources too
  const std::string_view text = data->text();
  auto kind = format::detect_coverage_format(path, text);
  if (!kind) return Error("neither an lcov tracefile nor covkit JSON");
  auto records = *kind == format::CoverageFileFormat::kLcov
                     ? format::read_lcov_tracefile(text, [&](format::SourceRecord&& s) { add(to_model(std::move(s))); })
                     : format::read_covkit_json(text);
  if (!records) return std::move(records).error();
  for (const std::string& w : records->warnings) warnings.push_back(fmt::format("{}: {}", util::printable(path), w));
  for (format::SourceRecord& s : records->sources) add(to_model(std::move(s)));
  test_names = std::move(records->test_names);
  return {};
}

}  // namespace

Expected<ProjectCov> load_coverage_file(const std::string& path, std::vector<std::string>& warnings) {
  ProjectCov p;
  ProjectAdder adder(p);
  std::vector<std::string> test_names;
  auto read = read_coverage_file(path, [&](FileCov&& f) { adder.add(std::move(f)); }, test_names, warnings);
  if (!read) return read.error();
  adder.finish(std::move(test_names));
  return p;
}

Expected<void> add_coverage_file(ProjectCov& into, const std::string& path, std::vector<std::string>& warnings) {
  ProjectAdder adder(into);
  std::vector<std::string> test_names;
  auto read = read_coverage_file(path, [&](FileCov&& f) { adder.add(std::move(f)); }, test_names, warnings);
  if (!read) return read.error();
  adder.finish(std::move(test_names));
  return {};
}

Expected<void> add_coverage_file(ProjectCov& into, const std::string& path, const SourcePathRules& paths,
                                 const PathFilter& filter, std::vector<std::string>& warnings) {
  ProjectAdder adder(into);
  std::vector<std::string> test_names;
  auto add = [&](FileCov&& f) {
    SourcePaths p = paths.resolve_absolute(format::absolute_path(f.absolute_path.empty() ? f.path : f.absolute_path));
    if (!filter.keep(p)) return;
    f.path = std::move(p.display);
    f.absolute_path = std::move(p.absolute);
    adder.add(std::move(f));
  };
  auto read = read_coverage_file(path, add, test_names, warnings);
  if (!read) return read.error();
  adder.finish({});  // a report names no test
  return {};
}

void add_project(ProjectCov& into, ProjectCov&& added, const SourcePathRules& paths, const PathFilter& filter) {
  ProjectCov kept;
  for (FileCov& f : added.files) {
    SourcePaths p = paths.resolve_absolute(format::absolute_path(f.absolute_path.empty() ? f.path : f.absolute_path));
    if (!filter.keep(p)) continue;
    f.path = std::move(p.display);
    f.absolute_path = std::move(p.absolute);
    kept.files.push_back(std::move(f));
  }
  merge_project(into, std::move(kept));
}

}  // namespace covkit::model
