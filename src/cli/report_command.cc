// `covkit report`: find objects -> build the model -> filter -> render every
// requested view -> gates. Each stage lives in its own module; this file only
// orders them and turns failures into messages and exit codes.
#include "cli/report_command.h"

#include <fmt/format.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <optional>
#include <regex>
#include <unordered_map>

#include "cli/progress_bar.h"
#include "cli/report_options.h"
#include "cli/version.h"
#include "format/object_files.h"
#include "format/covkit_json_reader.h"
#include "format/lcov_tracefile_reader.h"
#include "model/coverage_filters.h"
#include "model/coverage_merge.h"
#include "model/diff_lines.h"
#include "model/exclusion_markers.h"
#include "model/path_filter.h"
#include "model/project_builder.h"
#include "report/cobertura_writer.h"
#include "report/coveralls_writer.h"
#include "report/covkit_json_writer.h"
#include "report/html/html_site.h"
#include "report/lcov_writer.h"
#include "report/markdown_writer.h"
#include "report/sonarqube_writer.h"
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
// is a warning, not an error (the report still has its counts).
void apply_markers(model::ProjectCov& project, unsigned threads, Reporter& log) {
  std::vector<std::vector<std::string>> warnings(project.files.size());
  util::parallel_for(project.files.size(), threads, [&](size_t i) {
    model::FileCov& f = project.files[i];
    std::string err;
    auto data = util::read_file(f.absolute_path, &err);
    if (!data) {
      warnings[i].push_back(fmt::format("{}: source not readable ({}); its counts are reported, its exclusion "
                                        "markers cannot be (try --path-map OLD=NEW)",
                                        f.absolute_path, err));
      return;
    }
    std::string_view text(reinterpret_cast<const char*>(data->bytes.data()), data->bytes.size());
    model::ExclusionRegions regions = model::find_exclusions(text, f.path);
    model::apply_exclusions(f, regions);
    warnings[i] = std::move(regions.warnings);
  });
  for (auto& ws : warnings)
    for (auto& w : ws) log.warn(w);
}

// An lcov tracefile or a covkit JSON file, added to the report. Paths are
// re-resolved so --path-map and --root apply to them too.
bool add_tracefile(const std::string& name, const model::SourcePathRules& paths, const model::PathFilter& filter,
                   model::ProjectCov& project, Reporter& log) {
  std::string err;
  auto data = util::read_file(name, &err);
  if (!data) {
    log.error(fmt::format("{}: cannot read: {}", name, err));
    return false;
  }
  std::string_view text(reinterpret_cast<const char*>(data->bytes.data()), data->bytes.size());
  size_t first = text.find_first_not_of(" \t\r\n");
  const bool json = first != std::string_view::npos && text[first] == '{';
  std::optional<format::ParseError> error;
  model::ProjectCov added;
  if (json) {
    auto r = format::read_covkit_json(text);
    added = std::move(r.project);
    error = std::move(r.error);
  } else {
    auto r = format::read_lcov_tracefile(text);
    added = std::move(r.project);
    error = std::move(r.error);
  }
  if (error) {
    log.error(fmt::format("{}: {}", name, error->message));
    return false;
  }
  model::ProjectCov kept;
  for (model::FileCov& f : added.files) {
    model::SourcePaths p =
        paths.resolve_absolute(format::absolute_path(f.absolute_path.empty() ? f.path : f.absolute_path));
    if (!filter.keep(p)) continue;
    f.path = std::move(p.display);
    f.absolute_path = std::move(p.absolute);
    kept.files.push_back(std::move(f));
  }
  model::merge_project(project, std::move(kept));
  return true;
}

// Diff coverage: only lines changed since `rev` in the git repository that
// holds the root.
bool restrict_to_diff(model::ProjectCov& project, const std::string& rev, const std::string& root, Reporter& log) {
  std::string toplevel, err;
  auto changed = model::changed_lines_since(rev, root, &toplevel, &err);
  if (!changed) {
    log.error(fmt::format("--diff {}: {}", rev, err));
    return false;
  }
  // Compare real paths: the build may name the checkout through a symbolic
  // link (GCC records $PWD) while git reports the resolved top level.
  namespace fs = std::filesystem;
  auto canonical = [](const std::string& p) {
    std::error_code ec;
    fs::path c = fs::weakly_canonical(p, ec);
    return ec ? p : c.string();
  };
  const std::string top = canonical(format::absolute_path(toplevel)) + "/";
  std::unordered_map<const model::FileCov*, std::optional<std::string>> rel;  // file -> path below top
  model::restrict_lines(project, [&](const model::FileCov& f, uint32_t line) {
    auto [it, added] = rel.try_emplace(&f);
    if (added) {
      std::string abs = canonical(f.absolute_path);
      if (abs.compare(0, top.size(), top) == 0) it->second = abs.substr(top.size());
    }
    return it->second && changed->contains(*it->second, line);
  });
  return true;
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
                            report::format_percent_below(covered, total, *min), covered, total, what, *min));
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
    filter.emplace(o.filters, o.excludes, o.keep_system_headers, o.keep_cmake_probes);
  } catch (const std::regex_error& e) {
    log.error(fmt::format("bad --filter/--exclude regular expression: {}", e.what()));
    return kExitUsage;
  }
  model::SourcePathRules paths(o.root, o.source_prefix, o.path_maps);

  // 1. Objects.
  model::ProjectCov project;
  size_t objects_read = 0;
  bool objects_found = false;
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
    objects_found = !search.objects.empty();
    if (search.objects.empty() && !o.tracefiles.empty())
      log.warn("no .gcno or .gcda files found under the given paths");
    project = std::move(built.project);
  }
  if (objects_read == 0 && o.tracefiles.empty()) {
    log.error(o.paths.empty() || objects_found ? "nothing to report: no readable coverage data"
                                               : "nothing to report: no .gcno or .gcda files found under the given paths");
    return kExitUsage;
  }

  for (const auto& t : o.tracefiles)
    if (!add_tracefile(t, paths, *filter, project, log)) return kExitUsage;
  if (!o.show_instantiations)
    for (auto& f : project.files)
      for (auto& l : f.lines) l.instances.clear();

  // 2. Filters on the model.
  if (o.exclusion_markers) apply_markers(project, threads, log);
  model::filter_branches(project, {o.exclude_throw_branches, o.exclude_unreachable_branches});
  if (!o.diff_rev.empty() && !restrict_to_diff(project, o.diff_rev, paths.root(), log)) return kExitUsage;

  // 3. Views.
  bool write_ok = true;
  const int64_t now = int64_t(std::time(nullptr));
  const std::string version = std::string("covkit ") + kVersion;
  if (!o.lcov.empty()) write_ok &= write_output(o.lcov, report::render_lcov(project, {o.test_name}), log);
  if (!o.cobertura.empty()) {
    report::CoberturaOptions co{paths.root(), now, version};
    write_ok &= write_output(o.cobertura, report::render_cobertura(project, co), log);
  }
  if (!o.sonarqube.empty()) write_ok &= write_output(o.sonarqube, report::render_sonarqube(project), log);
  if (!o.coveralls.empty()) {
    report::CoverallsOptions co;
    co.service_name = o.coveralls_service;
    if (const char* job = std::getenv("COVERALLS_SERVICE_JOB_ID")) co.service_job_id = job;
    if (const char* token = std::getenv("COVERALLS_REPO_TOKEN")) co.repo_token = token;
    write_ok &= write_output(o.coveralls, report::render_coveralls(project, co), log);
  }
  if (!o.json.empty()) write_ok &= write_output(o.json, report::render_covkit_json(project), log);
  if (!o.markdown.empty()) write_ok &= write_output(o.markdown, report::render_markdown(project), log);
  if (!o.html.empty()) {
    report::html::HtmlOptions ho;
    ho.title = o.title;
    ho.show_instances = o.show_instantiations;
    ho.timestamp = now;
    ho.version = version;
    if (auto written = report::html::write_html_site(project, ho, o.html); !written) {
      log.error(written.error().message);
      write_ok = false;
    }
  }

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
