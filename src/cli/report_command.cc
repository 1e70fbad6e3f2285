// `covkit report`: find objects -> build the model -> filter -> render every
// requested view -> gates. Each stage lives in its own module; this file only
// orders them and turns failures into messages and exit codes.
#include "cli/report_command.h"

#include <fmt/format.h>
#include <unistd.h>

#include <cstdio>
#include <ctime>
#include <regex>

#include "cli/progress_bar.h"
#include "cli/report_options.h"
#include "cli/version.h"
#include "format/object_files.h"
#include "model/coverage_filters.h"
#include "model/coverage_merge.h"
#include "model/exclusion_markers.h"
#include "model/path_filter.h"
#include "model/project_builder.h"
#include "report/lcov_writer.h"
#include "report/terminal_summary.h"
#include "util/file_io.h"
#include "util/printable.h"
#include "util/thread_pool.h"

namespace covkit::cli {

namespace {

constexpr int kExitUsage = 1;
constexpr int kExitGate = 2;
constexpr int kExitWrite = 3;

class Reporter {
 public:
  explicit Reporter(const ReportOptions& o) : o_(o) {}
  void warn(const std::string& m) {
    if (!o_.quiet) std::fprintf(stderr, "covkit report: %s\n", util::printable(m).c_str());
  }
  void error(const std::string& m) { std::fprintf(stderr, "covkit report: %s\n", util::printable(m).c_str()); }

 private:
  const ReportOptions& o_;
};

// Markers are read from the sources themselves, in parallel; a missing source
// is not an error (the report still has its counts).
void apply_markers(model::ProjectCov& project, unsigned threads, Reporter& log) {
  std::vector<std::vector<std::string>> warnings(project.files.size());
  util::parallel_for(project.files.size(), threads, [&](size_t i) {
    model::FileCov& f = project.files[i];
    auto data = util::read_file(f.absolute_path);
    if (!data) return;
    std::string_view text(reinterpret_cast<const char*>(data->bytes.data()), data->bytes.size());
    model::ExclusionRegions regions = model::find_exclusions(text, f.path);
    model::apply_exclusions(f, regions);
    warnings[i] = std::move(regions.warnings);
  });
  for (auto& ws : warnings)
    for (auto& w : ws) log.warn(w);
}

bool write_output(const std::string& path, const std::string& content, Reporter& log) {
  std::string err;
  if (util::write_file_atomic(path, content, &err)) return true;
  log.error(fmt::format("{}: cannot write: {}", path, err));
  return false;
}

// The gates, each one line; returns whether all passed.
bool check_gates(const ReportOptions& o, const model::Totals& t, Reporter& log) {
  bool ok = true;
  auto gate = [&](const char* what, const std::optional<double>& min, int64_t covered, int64_t total) {
    if (!min || total == 0) return;
    double p = model::percent(covered, total);
    if (p + 1e-9 < *min) {
      log.error(fmt::format("{} coverage {} ({}/{}) is below --fail-under-{} {}", what,
                            report::format_percent(covered, total), covered, total, what, *min));
      ok = false;
    }
  };
  gate("line", o.fail_under_line, t.lines_covered, t.lines);
  gate("branch", o.fail_under_branch, t.branches_covered, t.branches);
  gate("function", o.fail_under_function, t.functions_covered, t.functions);
  return ok;
}

}  // namespace

int run_report_command(int argc, char** argv) {
  ReportOptions o;
  if (auto rc = parse_report_options(argc, argv, o)) return *rc;
  Reporter log(o);
  const unsigned threads = o.threads ? o.threads : util::default_threads();

  std::optional<model::PathFilter> filter;
  try {
    filter.emplace(o.filters, o.excludes, o.keep_system_headers);
  } catch (const std::regex_error& e) {
    log.error(fmt::format("bad --filter/--exclude regular expression: {}", e.what()));
    return kExitUsage;
  }
  model::SourcePathRules paths(o.root, o.source_prefix, o.path_maps);

  // 1. Objects.
  model::ProjectCov project;
  size_t objects_read = 0;
  if (!o.paths.empty()) {
    format::ObjectSearch search = format::find_objects(o.paths, o.object_directories);
    for (const auto& w : search.warnings) log.warn(w);
    ProgressBar bar("reading objects", stderr_is_terminal() && !o.quiet);
    model::BuildOptions bo;
    bo.threads = threads;
    bo.progress = [&](size_t done, size_t total) { bar.update(done, total); };
    model::BuildResult built = model::build_project(search.objects, paths, *filter, bo);
    bar.finish();
    for (const auto& m : built.messages) log.warn(m);
    objects_read = search.objects.size() - built.objects_failed;
    if (search.objects.empty()) log.warn("no .gcno or .gcda files found under the given paths");
    project = std::move(built.project);
  }
  if (objects_read == 0 && o.tracefiles.empty()) {
    log.error("nothing to report: no readable coverage data");
    return kExitUsage;
  }

  // 2. Filters on the model.
  if (o.exclusion_markers) apply_markers(project, threads, log);
  model::filter_branches(project, {o.exclude_throw_branches, o.exclude_unreachable_branches});

  // 3. Views.
  bool write_ok = true;
  if (!o.lcov.empty()) write_ok &= write_output(o.lcov, report::render_lcov(project, {o.test_name}), log);

  const bool any_file = !o.lcov.empty() || !o.cobertura.empty() || !o.sonarqube.empty() || !o.coveralls.empty() ||
                        !o.json.empty() || !o.html.empty() || !o.markdown.empty();
  if (!any_file || o.print_summary) {
    report::TerminalOptions to;
    to.color = o.color == "always" || (o.color == "auto" && isatty(STDOUT_FILENO));
    std::string table = report::render_terminal_summary(project, to);
    std::fwrite(table.data(), 1, table.size(), stdout);
  }

  // 4. Gates.
  bool gates_ok = check_gates(o, model::totals(project), log);
  if (!write_ok) return kExitWrite;
  return gates_ok ? 0 : kExitGate;
}

}  // namespace covkit::cli
