#include "model/load_coverage_file.h"

#include <fmt/format.h>

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

}  // namespace

ProjectCov to_model(format::CoverageRecords&& records) {
  ProjectCov p;
  p.files.reserve(records.sources.size());
  for (format::SourceRecord& s : records.sources) {
    FileCov f;
    f.path = std::move(s.path);
    f.absolute_path = std::move(s.absolute_path);
    f.lines.reserve(s.lines.size());
    for (auto& l : s.lines) f.lines.push_back(to_model(std::move(l)));
    f.functions.reserve(s.functions.size());
    for (auto& fn : s.functions) f.functions.push_back(to_model(std::move(fn)));
    f.regions.reserve(s.regions.size());
    for (const format::RegionRecord& r : s.regions)
      f.regions.push_back(RegionCov{r.line_start, r.column_start, r.line_end, r.column_end, r.count});
    p.files.push_back(std::move(f));
  }
  records.sources.clear();
  p.test_names = std::move(records.test_names);
  normalize(p);
  return p;
}

Expected<ProjectCov> load_coverage_file(const std::string& path, std::vector<std::string>& warnings) {
  auto data = util::read_file(path);
  if (!data) return data.error();
  util::note_data_file(path, *data);  // another user's tracefile names sources too
  const std::string_view text = data->text();
  auto kind = format::detect_coverage_format(path, text);
  if (!kind) return Error("neither an lcov tracefile nor covkit JSON");
  auto records = *kind == format::CoverageFileFormat::kLcov ? format::read_lcov_tracefile(text)
                                                             : format::read_covkit_json(text);
  if (!records) return std::move(records).error();
  for (const std::string& w : records->warnings) warnings.push_back(fmt::format("{}: {}", util::printable(path), w));
  return to_model(std::move(*records));
}

Expected<void> add_coverage_file(ProjectCov& into, const std::string& path, const SourcePathRules& paths,
                                 const PathFilter& filter, std::vector<std::string>& warnings) {
  auto added = load_coverage_file(path, warnings);
  if (!added) return std::move(added).error();
  add_project(into, std::move(*added), paths, filter);
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
