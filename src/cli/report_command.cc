// `covkit report`: options; then objects -> model -> filters -> every view
// requested -> gates, each stage a call into model/ or report/; then the exit
// status.
#include "cli/report_command.h"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <chrono>
#include <ctime>
#include <functional>
#include <optional>
#include <regex>

#include "cli/command_line.h"
#include "cli/progress_bar.h"
#include "cli/report_options.h"
#include "cli/terminal_colour.h"
#include "cli/version.h"
#include "clang/clang_model.h"
#include "format/input_kind.h"
#include "format/object_files.h"
#include "model/coverage_filters.h"
#include "model/coverage_gates.h"
#include "model/diff_coverage.h"
#include "model/exclusion_markers.h"
#include "model/coverage_merge.h"
#include "model/instantiations.h"
#include "model/load_coverage_file.h"
#include "model/path_filter.h"
#include "model/project_builder.h"
#include "model/source_texts.h"
#include "report/cobertura_writer.h"
#include "report/coveralls_writer.h"
#include "report/covkit_json_writer.h"
#include "report/html/html_site.h"
#include "report/lcov_writer.h"
#include "report/markdown_writer.h"
#include "report/object_warnings.h"
#include "report/sonarqube_writer.h"
#include "report/terminal_summary.h"
#include "util/atomic_output.h"
#include "util/fast_allocator.h"
#include "util/file_io.h"
#include "util/foreign_data.h"
#include "util/phase_timer.h"
#include "util/printable.h"
#include "util/source_date_epoch.h"
#include "util/thread_pool.h"

namespace covkit::cli {

namespace {

constexpr const char* kReportCommand = "covkit report";
constexpr int kExitUsage = 1;
constexpr int kExitGate = 2;
constexpr int kExitWrite = 3;

// COVKIT_TIMING=1: each phase's wall and CPU time on stderr (the phases of
// one report: finding the objects, reading and counting them, merging the
// copies of each source, the exclusion markers, the outputs), started with
// the command.
util::PhaseTimer& phase_timer() {
  static util::PhaseTimer timer;
  return timer;
}

class Reporter {
 public:
  Reporter(const ReportOptions& o, std::string_view command) : o_(o), command_(command) {}
  void warn(const std::string& m) {
    if (!o_.quiet) fail(command_, "", m);
  }
  void error(const std::string& m) { fail(command_, "", m); }

 private:
  const ReportOptions& o_;
  std::string_view command_;
};

// Where to look instead when the paths hold no coverage data: the
// directories near them that hold .gcno files (`covkit report src/` next to
// build/; format::directories_with_notes_near bounds the search), or the
// reason a build directory below them has none.
std::string build_directory_hint(const std::vector<std::string>& paths) {
  for (const std::string& p : paths) {
    const std::string abs = format::absolute_path(p);
    for (const std::string& below : format::build_directories_below(abs))
      return fmt::format(" ({} looks like a build directory but holds no .gcno files: was it built with "
                         "--coverage?)",
                         util::printable(below));
  }
  for (const std::string& p : paths) {
    const std::vector<std::string> near = format::directories_with_notes_near(p);
    if (near.empty()) continue;
    std::string where;
    for (size_t i = 0; i < near.size() && i < 3; ++i) where += (i ? ", " : "") + util::printable(near[i]);
    if (near.size() > 3) where += fmt::format(" and {} more", near.size() - 3);
    return fmt::format(" (the nearest .gcno files are under {}: {} {})", where, kReportCommand,
                       util::printable(near[0]));
  }
  return " (give the build directory, where the .gcno files are)";
}

std::string nothing_found(const std::vector<std::string>& paths, size_t unpaired_data) {
  // A recording, a profile or a tracefile given as a PATH: said what it is
  // and what reads it (issue 35: "pointed at a trace directory, say so").
  for (const std::string& p : paths)
    if (std::string hint = format::wrong_kind_hint(p, format::InputKind::build_tree); !hint.empty())
      return fmt::format("nothing to report: no .gcno or .gcda files under {}{}", util::printable(p), hint);
  std::string searched;
  for (const std::string& p : paths) searched += (searched.empty() ? "" : ", ") + util::printable(format::absolute_path(p));
  if (unpaired_data > 0)
    return fmt::format("nothing to report: {} .gcda file{} under {} but no .gcno to read {} with (built with "
                       "-fprofile-arcs alone, without -ftest-coverage or --coverage? or the .gcno files are elsewhere: "
                       "--object-directory DIR)",
                       unpaired_data, unpaired_data == 1 ? "" : "s", searched, unpaired_data == 1 ? "it" : "them");
  return fmt::format("nothing to report: no .gcno or .gcda files under {}{}", searched, build_directory_hint(paths));
}

struct Objects {
  model::ProjectCov project;
  size_t found = 0, damaged = 0, failed = 0, partial = 0;
  // Nothing of any object could be read: every one is damaged, and none
  // has counts up to a point (a .gcda cut short is reported as far as it
  // goes, as gcov and lcov report it).
  bool none_read() const { return damaged == found && partial == 0; }
};

Objects read_objects(const ReportOptions& o, const std::vector<format::ObjectFiles>& objects,
                     const model::SourcePathRules& paths, const model::PathFilter& filter, unsigned threads,
                     Reporter& log) {
  ProgressBar bar("reading objects", stderr_is_terminal() && !o.quiet);
  model::BuildOptions bo;
  bo.threads = threads;
  bo.instances = o.show_instantiations;
  bo.progress = [&](size_t done, size_t total) { bar.update(done, total); };
  if (phase_timer().enabled()) bo.phase = [](const char* phase) { phase_timer().mark(phase); };
  model::BuildResult built = model::build_project(objects, paths, filter, bo);
  bar.finish();
  for (const auto& d : built.diagnostics) log.warn(report::object_warning(d));
  // The summary of what went wrong comes after the details, so it is read.
  if (built.objects_damaged > 0)
    log.warn(fmt::format("{} of {} objects {} damaged or unreadable inputs; {} counts are missing or partial",
                         built.objects_damaged, objects.size(), built.objects_damaged == 1 ? "has" : "have",
                         built.objects_damaged == 1 ? "its" : "their"));
  // No object ran at all: the tests did not run, or wrote their counts
  // elsewhere (GCOV_PREFIX, another CI job): a plain 0% would hide that. Said
  // once, as read_clang says it of clang's profiles.
  const bool any_ran = std::any_of(objects.begin(), objects.end(),
                                   [](const format::ObjectFiles& f) { return f.counts || !f.data.empty(); });
  if (!objects.empty() && !any_ran)
    log.warn(fmt::format("no .gcda file found: {} reported as never run (did the tests run? counts written "
                         "elsewhere, as with GCOV_PREFIX, are found when that tree is a PATH too)",
                         objects.size() == 1 ? "the object is" : fmt::format("the {} objects are", objects.size())));
  return {std::move(built.project), objects.size(), built.objects_damaged, built.objects_failed,
          built.objects_partial};
}

// Clang's source-based coverage: profiles added up, binaries' mappings
// counted against them, into the model. `read` is false when there was
// clang data but none of it could be used.
struct ClangPart {
  model::ProjectCov project;
  bool any_input = false, read = false;
};

ClangPart read_clang(const clang::ClangInputs& in, const model::SourcePathRules& paths,
                     const model::PathFilter& filter, bool instances, unsigned threads, Reporter& log) {
  ClangPart part;
  if (in.empty()) return part;
  part.any_input = true;
  // Another user's profiles and binaries name sources too (util/foreign_data.h).
  for (const std::string& p : in.profiles) util::note_data_path(p);
  for (const std::string& b : in.binaries) util::note_data_path(b);
  clang::NameTableCache names;  // the profiles' names are their binaries'
  clang::LoadedProfiles profiles = clang::load_profiles(in.profiles, threads, &names);
  phase_timer().mark("clang profiles added up");
  for (const std::string& w : profiles.warnings) log.warn(w);
  if (in.binaries.empty()) {
    log.warn(fmt::format("{} clang profile{} but no program or library with a coverage mapping to read {} with "
                         "(name them with --object BIN, or give the directory that holds them)",
                         in.profiles.size(), in.profiles.size() == 1 ? "" : "s",
                         in.profiles.size() == 1 ? "it" : "them"));
    return part;
  }
  if (in.profiles.empty())
    log.warn(fmt::format("no .profraw or .profdata file found: the {} instrumented binar{} reported as never run",
                         in.binaries.size(), in.binaries.size() == 1 ? "y is" : "ies are"));
  clang::LoadedMappings mappings = clang::load_mappings(in.binaries, profiles.counts, threads, &names);
  phase_timer().mark("clang mappings counted");
  for (const std::string& w : mappings.warnings) log.warn(w);
  part.read = mappings.read > 0;
  std::vector<std::string> warnings;
  part.project = clang::to_project_model(mappings.set, paths, filter, &warnings, instances, threads);
  mappings.set.clear(threads);
  for (const std::string& w : warnings) log.warn(w);
  return part;
}

// The error of writing `content` to `path`, or "" when it was written.
std::string write_output(const std::string& path, const std::string& content) {
  auto written = util::write_file_or_stdout(path, content);
  if (written) return {};
  return fmt::format("{}: cannot write: {}", path == "-" ? "<stdout>" : util::printable(path),
                     written.error().message);
}

// The error of writing the text `render` hands on in pieces to `path`, or
// "" when it was written: the same words as write_output's. Nothing is
// rendered for a file that cannot be opened. Standard output gets the text
// whole, through write_output (its flush and error rules live there).
std::string stream_output(const std::string& path, const std::function<void(const report::TextPieces&)>& render) {
  if (path == "-") {
    std::string text;
    render([&](std::string_view piece) { text += piece; });
    return write_output(path, text);
  }
  auto said = [&](const std::string& message) {
    return fmt::format("{}: cannot write: {}", util::printable(path), message);
  };
  auto out = util::AtomicOutput::open(path);
  if (!out) return said(out.error().message);
  render([&](std::string_view piece) { out->write(piece); });
  if (auto c = out->commit(); !c) return said(c.error().message);
  return {};
}

// The text outputs (one file each), rendered and written in order; one
// error line per output that could not be written.
std::vector<std::string> write_text_views(const ReportOptions& o, const model::ProjectCov& project,
                                          const std::string& root, int64_t now, const std::string& version) {
  std::vector<std::string> errors;
  auto put = [&](const std::string& path, const std::string& content) {
    if (std::string e = write_output(path, content); !e.empty()) errors.push_back(std::move(e));
  };
  auto stream = [&](const std::string& path, const std::function<void(const report::TextPieces&)>& render) {
    if (std::string e = stream_output(path, render); !e.empty()) errors.push_back(std::move(e));
  };
  // The two large texts are written as they are made (report/text_pieces.h).
  if (!o.lcov.empty())
    stream(o.lcov, [&](const report::TextPieces& emit) { report::stream_lcov(project, {o.test_name}, emit); });
  if (!o.cobertura.empty()) {
    const report::CoberturaOptions co{
        root, o.source_prefix.empty() ? std::string() : format::absolute_path(o.source_prefix), now, version};
    stream(o.cobertura, [&](const report::TextPieces& emit) { report::stream_cobertura(project, co, emit); });
  }
  if (!o.sonarqube.empty()) put(o.sonarqube, report::render_sonarqube(project));
  if (!o.coveralls.empty()) {
    report::CoverallsOptions co;
    co.service_name = o.coveralls_service;
    if (const char* job = std::getenv("COVERALLS_SERVICE_JOB_ID")) co.service_job_id = job;
    if (const char* token = std::getenv("COVERALLS_REPO_TOKEN")) co.repo_token = token;
    put(o.coveralls, report::render_coveralls(project, co));
  }
  if (!o.json.empty()) put(o.json, report::render_covkit_json(project));
  if (!o.markdown.empty()) put(o.markdown, report::render_markdown(project));
  if (!o.table.empty()) put(o.table, report::render_terminal_summary(project, {}));
  return errors;
}

// Every file output requested; false when any could not be written. The
// text outputs are made on the HTML site's threads, alongside its pages:
// made one after the other, the text outputs left a core idle for a third
// of a large report. Errors are said in the same order either way: the
// text outputs' first.
bool write_views(const ReportOptions& o, const model::ProjectCov& project, const std::string& root,
                 const model::SourceTexts& sources, Reporter& log) {
  auto stamp = util::output_timestamp();
  if (!stamp) {
    log.error(stamp.error().message);
    return false;
  }
  const int64_t now = *stamp;
  const std::string version = std::string("covkit ") + kVersion;
  std::vector<std::string> text_errors;
  bool text_done = false;
  auto text_views = [&] {
    const auto wall = std::chrono::steady_clock::now();
    const double cpu = util::PhaseTimer::thread_cpu_ms();
    text_errors = write_text_views(o, project, root, now, version);
    text_done = true;
    phase_timer().note(" of which text outputs",
                       std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - wall).count(),
                       util::PhaseTimer::thread_cpu_ms() - cpu);
  };
  std::optional<std::string> html_error;
  if (!o.html.empty()) {
    report::html::HtmlOptions ho;
    ho.title = o.title;
    ho.show_instances = o.show_instantiations;
    ho.timestamp = now;
    ho.version = version;
    ho.counts_are_lower_bounds = o.sampled_counts;
    ho.threads = o.threads;
    ho.sources = &sources;
    if (auto site = report::html::write_html_site(project, ho, o.html, text_views); !site)
      html_error = site.error().message;
  }
  if (!text_done) text_views();
  for (const std::string& e : text_errors) log.error(e);
  if (html_error) log.error(*html_error);
  return text_errors.empty() && !html_error;
}

// "-" names standard output (as for lcov and gcovr); two texts there, or one
// and the summary table, would be one unreadable stream: a usage error.
bool one_output_on_stdout(const ReportOptions& o, Reporter& log) {
  std::vector<std::string> on_stdout;
  const std::pair<const char*, const std::string*> outputs[] = {
      {"--lcov", &o.lcov}, {"--cobertura", &o.cobertura}, {"--sonarqube", &o.sonarqube},
      {"--coveralls", &o.coveralls}, {"--json", &o.json}, {"--markdown", &o.markdown}, {"-o", &o.table}};
  for (const auto& [option, path] : outputs)
    if (*path == "-") on_stdout.push_back(option);
  if (on_stdout.size() > 1) {
    std::string options = on_stdout[0];
    for (size_t i = 1; i < on_stdout.size(); ++i) options += (i + 1 == on_stdout.size() ? " and " : ", ") + on_stdout[i];
    log.error(fmt::format("{} all name standard output ('-'); only one output can go there", options));
    return false;
  }
  if (!on_stdout.empty() && o.print_summary) {
    log.error(fmt::format("{} - and --print-summary would both write to standard output", on_stdout[0]));
    return false;
  }
  return true;
}

bool writes_files(const ReportOptions& o) {
  return !o.lcov.empty() || !o.cobertura.empty() || !o.sonarqube.empty() || !o.coveralls.empty() ||
         !o.json.empty() || !o.html.empty() || !o.markdown.empty() || !o.table.empty();
}

// Sources named one line each, at most: a CI job that has the build tree
// and not the sources would otherwise print one line per source, thousands;
// the rest are one line with their count. The counts of all are kept.
constexpr size_t kUnreadableSourcesNamed = 10;

void warn_unreadable_sources(const std::vector<model::UnreadableSource>& unreadable, Reporter& log) {
  for (size_t i = 0; i < unreadable.size() && i < kUnreadableSourcesNamed; ++i)
    log.warn(fmt::format("{}: source not readable ({}); its counts are reported, its exclusion markers cannot be "
                         "(try --path-map OLD=NEW)",
                         util::printable(unreadable[i].path), unreadable[i].why));
  if (unreadable.size() <= kUnreadableSourcesNamed) return;
  const size_t more = unreadable.size() - kUnreadableSourcesNamed;
  log.warn(fmt::format("{} more source{} not readable ({} in all); their counts are reported, their exclusion "
                       "markers cannot be (are the sources elsewhere? --path-map OLD=NEW reads them there; "
                       "--no-exclusion-markers reads none)",
                       more, more == 1 ? "" : "s", unreadable.size()));
}

// The gates, one line each; returns whether all passed. `changes_without_code`:
// --diff kept no line of a project that has some, as when a change touches
// only documentation or comments; diff-cover passes its --fail-under then
// (nothing changed needs covering), and so does the line gate, saying so.
bool check_gates(const ReportOptions& o, const model::Totals& totals, bool changes_without_code, Reporter& log) {
  model::GateThresholds gates{o.fail_under_line, o.fail_under_branch, o.fail_under_function};
  gates.no_lines_pass = changes_without_code;
  if (changes_without_code && o.fail_under_line && totals.lines == 0)
    log.warn(fmt::format("no line changed since {} has code: --fail-under-line {} passes, with nothing to measure",
                         util::printable(o.diff_rev), *o.fail_under_line));
  const auto failed = model::check_gates(gates, totals);
  for (const model::GateFailure& f : failed) {
    if (f.total == 0)
      log.error(fmt::format("{} coverage cannot be measured: there are no {}s (check the paths and filters) and "
                            "--fail-under-{} {} asks for some",
                            f.what, f.what, f.what, f.minimum));
    else
      log.error(fmt::format("{} coverage {} ({}/{}) is below --fail-under-{} {}", f.what,
                            report::format_percent_below(f.covered, f.total, f.minimum), f.covered, f.total, f.what,
                            f.minimum));
  }
  return failed.empty();
}

}  // namespace

int report_objects(const ReportOptions& o, const std::vector<format::ObjectFiles>& found, std::string_view command) {
  return report_objects(o, found, clang::ClangInputs{}, command);
}

int report_objects(const ReportOptions& o, const std::vector<format::ObjectFiles>& found,
                   const clang::ClangInputs& clang_inputs, std::string_view command) {
  Reporter log(o, command);
  const unsigned threads = o.threads ? o.threads : util::default_threads();
  std::optional<model::PathFilter> filter = make_path_filter(command, o);
  if (!filter) return kExitUsage;
  model::SourcePathRules paths(o.root, o.source_prefix, o.path_maps);

  // Whose data this is, known before any object is read (the objects are
  // read in parallel, and the notes of one are read with the rights of the
  // owners of all: util/foreign_data.h).
  for (const format::ObjectFiles& f : found) {
    util::note_data_path(f.notes);
    if (!f.counts && !f.data.empty()) util::note_data_path(f.data);
  }
  // 1. Objects, clang's coverage and tracefiles into one model.
  Objects objects = read_objects(o, found, paths, *filter, threads, log);
  ClangPart clang_part = read_clang(clang_inputs, paths, *filter, o.show_instantiations, threads, log);
  if (clang_part.any_input) {
    phase_timer().mark("clang model built");
    if (o.tracefiles.empty() && !clang_part.read && objects.none_read()) {
      log.error("nothing to report: no clang coverage could be read (see above)");
      return kExitUsage;
    }
    model::merge_project(objects.project, std::move(clang_part.project), threads);
    return report_project(o, std::move(objects.project), command);
  }
  if (o.tracefiles.empty() && objects.none_read()) {
    log.error(objects.found == 1
                  ? std::string("nothing to report: the one object found could not be read (see above)")
                  : fmt::format("nothing to report: none of the {} objects found could be read (see above)",
                                objects.found));
    return kExitUsage;
  }
  return report_project(o, std::move(objects.project), command);
}

int report_coverage(const ReportOptions& o, model::ProjectCov coverage, std::string_view command) {
  std::optional<model::PathFilter> filter = make_path_filter(command, o);
  if (!filter) return kExitUsage;
  model::ProjectCov project;
  model::add_project(project, std::move(coverage), model::SourcePathRules(o.root, o.source_prefix, o.path_maps),
                     *filter);
  return report_project(o, std::move(project), command);
}

int report_project(const ReportOptions& o, model::ProjectCov project, std::string_view command) {
  Reporter log(o, command);
  if (!one_output_on_stdout(o, log)) return kExitUsage;
  const unsigned threads = o.threads ? o.threads : util::default_threads();
  std::optional<model::PathFilter> filter = make_path_filter(command, o);
  if (!filter) return kExitUsage;
  model::SourcePathRules paths(o.root, o.source_prefix, o.path_maps);
  for (const auto& t : o.tracefiles) {
    std::vector<std::string> warnings;
    if (auto added = model::add_coverage_file(project, t, paths, *filter, warnings); !added) {
      log.error(fmt::format("{}: {}", util::printable(t), added.error().message));
      return kExitUsage;
    }
    for (const std::string& w : warnings) log.warn(w);
  }
  if (!o.tracefiles.empty()) phase_timer().mark("tracefiles read");
  if (o.show_instantiations) {
    model::prune_instances(project);
  } else {
    for (auto& f : project.files)
      for (auto& l : f.lines) l.instances.clear();
  }

  // 2. Filters on the model.
  // Each source is read once: the pages show the text the markers were read from.
  model::SourceTexts sources;
  if (o.exclusion_markers) {
    model::SourceExclusions found = model::apply_source_exclusions(project, threads, o.html.empty() ? nullptr : &sources);
    for (const std::string& w : found.warnings) log.warn(w);
    warn_unreadable_sources(found.unreadable, log);
    phase_timer().mark("exclusion markers");
  }
  model::filter_branches(project, {o.exclude_throw_branches, o.exclude_unreachable_branches});
  // Whether there were lines before --diff kept only the changed ones (a
  // pass over the lines, made only when a line gate asks).
  bool lines_before_diff = false;
  if (!o.diff_rev.empty()) {
    lines_before_diff = o.fail_under_line && model::totals(project).lines > 0;
    auto restricted = model::restrict_to_diff(project, o.diff_rev, paths.root());
    if (!restricted) {
      log.error(restricted.error().message);
      return kExitUsage;
    }
    // A change can be without code only where the report's files were
    // matched with the checkout at all: none inside it (a build elsewhere,
    // paths not mapped) is a change not measured, which fails the gate.
    if (lines_before_diff && restricted->files_in_checkout == 0) {
      lines_before_diff = false;
      log.warn(fmt::format("--diff {}: no file of the report is inside the git checkout {} (built elsewhere? "
                           "--path-map OLD=NEW names the sources as the checkout does)",
                           util::printable(o.diff_rev), util::printable(restricted->toplevel)));
    }
  }

  // 3. Views.
  phase_timer().mark("filters");
  const bool write_ok = write_views(o, project, paths.root(), sources, log);
  phase_timer().mark("outputs written");
  bool table_ok = true;
  if (!writes_files(o) || o.print_summary) {
    report::TerminalOptions to;
    to.color = colour_wanted(o.color, STDOUT_FILENO);
    std::string table = report::render_terminal_summary(project, to);
    std::fwrite(table.data(), 1, table.size(), stdout);
    // The table is an output too: not written (a full disk, a closed
    // descriptor) is exit 3, as for the files; checked_stdout says why.
    table_ok = std::fflush(stdout) == 0 && !std::ferror(stdout);
  }

  // 4. Gates.
  // Counted only when a gate asks: a pass over every line and branch.
  const bool any_gate = o.fail_under_line || o.fail_under_branch || o.fail_under_function;
  bool gates_ok = true;
  if (any_gate) {
    const model::Totals totals = model::totals(project);
    gates_ok = check_gates(o, totals, lines_before_diff && totals.lines == 0, log);
  }
  if (!write_ok || !table_ok) return kExitWrite;
  return gates_ok ? 0 : kExitGate;
}

namespace {

int run_report(const ReportOptions& o) {
  Reporter log(o, kReportCommand);
  if (!make_path_filter(kReportCommand, o) || !one_output_on_stdout(o, log)) return kExitUsage;  // before any search
  std::vector<format::ObjectFiles> objects;
  // Files that are clang's (profiles, binaries) are not gcov's to look at;
  // directories may hold both.
  std::vector<std::string> gcov_paths;
  for (const std::string& p : o.paths)
    if (util::is_directory(p) || clang::file_kind(p) == clang::FileKind::kOther) gcov_paths.push_back(p);
  for (const std::string& b : o.objects) {
    std::string problem;
    if (util::is_directory(b)) {
      problem = "is a directory, not a program or library";
    } else if (auto fd = util::open_input_file(b); !fd) {
      problem = "cannot read it: " + fd.error().message;  // e.g. another user's link to what they may not read
    } else if (clang::file_kind(fd->get()) != clang::FileKind::kElf) {
      problem = "not an ELF program or library";
    }
    if (!problem.empty()) {
      log.error(fmt::format("--object {}: {}", util::printable(b), problem));
      return kExitUsage;
    }
  }
  // The two searches run side by side, on the threads that then read the
  // objects: each walks the whole tree, and clang's also stats every file
  // and opens each executable (zstd's: 1,326 files and 103 executables,
  // 4.8 ms against gcov's 2.6), where one after the other they were the
  // longest part of a report that no other core helped with.
  clang::ClangInputs clang_inputs;
  format::ObjectSearch search;
  const unsigned threads = o.threads ? o.threads : util::default_threads();
  util::parallel_for(2, threads, [&](size_t i) {
    if (i == 0)
      clang_inputs = clang::find_clang_inputs(o.paths, o.objects);
    else if (!gcov_paths.empty())
      search = format::find_objects(gcov_paths, o.object_directories,
                                    o.add_data ? format::SeveralData::add : format::SeveralData::named);
  });
  if (!gcov_paths.empty()) {
    for (const auto& w : search.warnings) log.warn(w);
    if (!search.conflict.empty()) {
      log.error(search.conflict);
      return kExitUsage;
    }
    if (search.objects.empty() && clang_inputs.empty()) {
      if (o.tracefiles.empty()) {
        log.error(nothing_found(gcov_paths, search.unpaired_data));
        return kExitUsage;
      }
      log.warn(nothing_found(gcov_paths, search.unpaired_data));
    }
    objects = std::move(search.objects);
  }
  phase_timer().mark("objects found");
  return report_objects(o, objects, clang_inputs, kReportCommand);
}

}  // namespace

int run_report_command(int argc, char** argv) {
  phase_timer();  // started
  ReportOptions o;
  if (auto rc = parse_report_options(argc, argv, o)) return *rc;
  // Reads much, allocates much: mimalloc, in 4 KiB pages. Not in 2 MiB ones:
  // those come from the free blocks a VM's balloon hands back to the host
  // (free page reporting), and the host then zeroes each anew on the first
  // touch, which made a report after a pause ~20% slower (bench/README.md).
  util::use_fast_allocator();
  phase_timer().mark("options");
  const int status = run_guarded(kReportCommand, [&] { return run_report(o); });
  phase_timer().mark("summary, gates, freeing");
  phase_timer().total("total (from the command)");
  return status;
}

}  // namespace covkit::cli
