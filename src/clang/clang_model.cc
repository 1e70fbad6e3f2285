#include "clang/clang_model.h"

#include <fmt/format.h>

#include <algorithm>
#include <optional>

#include "clang/coverage_views.h"
#include "model/counts.h"
#include "model/coverage_merge.h"
#include "util/llvm_demangle.h"
#include "util/printable.h"
#include "util/thread_pool.h"

namespace covkit::clang {

namespace {

// A count llvm-cov computes below zero (a counter expression that a
// longjmp or an exception left unbalanced) wraps to 2^64 - n, which
// llvm-cov prints as such. The model reads it as 0, as lcov reads negative
// counts, and the file's warning says where.
struct NegativeCounts {
  size_t seen = 0;
  uint32_t first_line = 0;
  int64_t take(uint64_t count, uint32_t line) {
    if (count <= uint64_t(INT64_MAX)) return int64_t(count);
    if (seen++ == 0 || line < first_line) first_line = line;
    return 0;
  }
};

// "_ZN3foo3barEv" demangled as llvm-cov shows it; a static function's
// "file.c:name" keeps its file prefix.
std::string demangled_name(const std::string& name) {
  const size_t colon = name.rfind(':');
  const std::string bare = colon == std::string::npos ? name : name.substr(colon + 1);
  if (bare.rfind("_Z", 0) != 0) return name;
  auto d = util::llvm_demangle(bare);
  if (!d) return name;
  return colon == std::string::npos ? *d : name.substr(0, colon + 1) + *d;
}

model::FunctionCov function_model(const FunctionRecord& f, NegativeCounts& negative) {
  model::FunctionCov fc;
  fc.name = f.name;
  fc.demangled = demangled_name(f.name);
  if (!f.regions.empty()) {
    const CountedRegion& body = f.regions.front();
    fc.start_line = body.line_start;
    fc.start_column = body.column_start;
    fc.end_line = body.line_end;
    fc.end_column = body.column_end;
  }
  fc.execution_count = negative.take(f.execution_count, fc.start_line);
  for (const CountedRegion& r : f.regions) {
    if (r.kind != RegionKind::kCode) continue;
    ++fc.regions;
    fc.regions_covered += r.execution_count != 0;
  }
  return fc;
}

// Each condition on a line gives two branches, true then false, numbered
// by the line's conditions (constant-folded ones are left out).
void attach_branches(model::FileCov& fc, const std::vector<CountedRegion>& sorted, NegativeCounts& negative) {
  for (size_t i = 0; i < sorted.size();) {
    const uint32_t line = sorted[i].line_start;
    model::LineCov* l = fc.find_line(line);
    if (!l) {
      // Branches on a line llvm-cov's line rules do not count (a condition
      // on a line that a skipped region opens: gawk's `if (   (! do_posix
      // /* ... */`): kept for its branches, with no count of its own.
      model::LineCov added;
      added.number = line;
      added.no_count = true;
      fc.lines.insert(std::lower_bound(fc.lines.begin(), fc.lines.end(), line,
                                       [](const model::LineCov& a, uint32_t n) { return a.number < n; }),
                      std::move(added));
      l = fc.find_line(line);
    }
    uint32_t pair = 0;
    for (; i < sorted.size() && sorted[i].line_start == line; ++i) {
      const CountedRegion& b = sorted[i];
      if (b.folded) continue;
      const bool ran = b.execution_count != 0 || b.false_execution_count != 0;
      for (uint64_t count : {b.execution_count, b.false_execution_count}) {
        model::BranchCov bc;
        bc.count = negative.take(count, line);
        bc.executed = ran;
        bc.block = pair;
        l->branches.push_back(bc);
      }
      ++pair;
    }
  }
}

// Each function's own count of its lines (its regions in the file it is
// defined in, as llvm-cov shows one instantiation), for
// --show-instantiations; model::prune_instances keeps those of functions
// that share their first line with another (template instantiations).
void attach_instances(model::FileCov& fc, const FunctionRecord& f, NegativeCounts& negative) {
  const std::optional<uint32_t> home = main_file_id(f);
  if (!home) return;
  std::vector<CountedRegion> own;
  for (const CountedRegion& r : f.regions)
    if (r.file_id == *home) own.push_back(r);
  for (const LineCount& lc : mapped_lines(build_segments(own)))
    if (model::LineCov* l = fc.find_line(lc.line))
      l->instances.push_back(model::LineInstance{f.name, negative.take(lc.count, lc.line)});
}

}  // namespace

model::FileCov file_model(const CoverageSet& set, const std::string& filename, std::string* warning,
                          bool instances) {
  NegativeCounts negative;
  model::FileCov fc;
  fc.path = fc.absolute_path = filename;
  CoverageView view = view_of_file(set, filename);
  for (const LineCount& lc : mapped_lines(view.segments)) {
    model::LineCov l;
    l.number = lc.line;
    l.count = negative.take(lc.count, lc.line);
    fc.lines.push_back(std::move(l));
  }
  attach_branches(fc, lcov_branches(view), negative);
  for (size_t index : set.records_of(filename)) {
    const FunctionRecord& f = set.functions()[index];
    if (f.filenames.empty() || f.filenames[0] != filename) continue;
    fc.functions.push_back(function_model(f, negative));
    if (instances) attach_instances(fc, f, negative);
  }
  for (const CountedRegion& r : view.regions) {
    if (r.kind != RegionKind::kCode) continue;
    fc.regions.push_back(model::RegionCov{r.line_start, r.column_start, r.line_end, r.column_end,
                                          negative.take(r.execution_count, r.line_start)});
  }
  if (warning && negative.seen > 0)
    *warning = fmt::format("{} count{} below zero (counter expressions that a longjmp, an exception or a racing "
                           "thread left unbalanced), read as 0; the first at line {}",
                           negative.seen, negative.seen == 1 ? "" : "s", negative.first_line);
  return fc;
}

model::ProjectCov to_project_model(const CoverageSet& set, const model::SourcePathRules& paths,
                                   const model::PathFilter& filter, std::vector<std::string>* warnings,
                                   bool instances, unsigned threads) {
  model::ProjectCov project;
  struct Part {
    std::string filename;
    model::SourcePaths paths;
    model::FileCov file;
    std::string warning;
  };
  std::vector<Part> parts;
  for (std::string& filename : set.source_files()) {
    model::SourcePaths p = filename.empty() || filename[0] != '/' ? paths.resolve(filename, "")
                                                                  : paths.resolve_absolute(filename);
    if (filter.keep(p)) parts.push_back(Part{std::move(filename), std::move(p), {}, {}});
  }
  // Files are independent: counted on every thread, kept in order, those
  // the most functions touch first (a header every unit includes, started
  // last, kept one core busy long after the others had finished).
  std::vector<size_t> largest_first(parts.size()), functions(parts.size());
  for (size_t i = 0; i < parts.size(); ++i) {
    largest_first[i] = i;
    functions[i] = set.records_of(parts[i].filename).size();
  }
  std::stable_sort(largest_first.begin(), largest_first.end(),
                   [&](size_t a, size_t b) { return functions[a] > functions[b]; });
  util::parallel_for(parts.size(), threads, [&](size_t job) {
    Part& part = parts[largest_first[job]];
    part.file = file_model(set, part.filename, &part.warning, instances);
  });
  for (Part& part : parts) {
    if (warnings && !part.warning.empty()) warnings->push_back(util::printable(part.filename) + ": " + part.warning);
    part.file.path = std::move(part.paths.display);
    part.file.absolute_path = std::move(part.paths.absolute);
    project.files.push_back(std::move(part.file));
  }
  model::normalize(project, threads);
  model::drop_files_without_lines(project);
  return project;
}

}  // namespace covkit::clang
