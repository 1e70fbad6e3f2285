#include "cli/merge_command.h"

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <cstdio>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>
#include <variant>
#include <vector>

#include "format/gcda_reader.h"
#include "format/gcda_writer.h"
#include "model/coverage_merge.h"
#include "model/data_merge.h"
#include "model/load_coverage_file.h"
#include "report/covkit_json_writer.h"
#include "report/lcov_writer.h"
#include "util/file_io.h"
#include "util/printable.h"

namespace covkit::cli {

namespace {

namespace fs = std::filesystem;

constexpr const char* kDescription =
    "Adds coverage data together.\n"
    "\n"
    "Directories: .gcda trees (one per test run, GCOV_PREFIX directories, build\n"
    "trees). Files are matched by their path below each directory and added as\n"
    "libgcov adds runs (counters and run counts add up); OUT is a directory that\n"
    "receives the same tree, which gcov, lcov or `covkit report` then read as if\n"
    "every run had happened in one place. A file found in only some trees is\n"
    "copied as it is. Data of different builds of an object (another stamp or\n"
    "function checksum) is an error, and then nothing is written.\n"
    "\n"
    "Files: lcov tracefiles (.info) and covkit JSON files, added by lcov's rules\n"
    "(line counts add; branches add by position on their line; functions by\n"
    "name) into one file OUT.\n";

constexpr const char* kFooter =
    "Exit status: 0 on success, 1 on any error (one line on stderr).\n"
    "\n"
    "Examples:\n"
    "  covkit merge -o merged run1/ run2/ run3/     add three GCOV_PREFIX trees\n"
    "  covkit merge -o all.info unit.info integration.info\n"
    "  covkit merge -o all.json a.json b.info       lcov in, covkit JSON out\n"
    "  covkit merge --format lcov -o all.txt a.json b.json";

int fail(std::string_view file, std::string_view what) {
  std::fprintf(stderr, "covkit merge: %s: %s\n", util::printable(file).c_str(), std::string(what).c_str());
  return 1;
}

// ---- .gcda trees --------------------------------------------------------

// Relative path (with '/') -> the file in each tree that has it, in argument order.
using DataTrees = std::map<std::string, std::vector<std::string>>;

std::optional<std::string> collect_data_files(const std::string& root, DataTrees& trees) {
  std::error_code ec;
  // Symbolic links to directories are not followed: a link cycle must not
  // make the walk endless.
  fs::recursive_directory_iterator it(root, fs::directory_options::none, ec), end;
  for (; !ec && it != end; it.increment(ec)) {
    const fs::path& p = it->path();
    std::error_code file_ec;
    if (p.extension() != ".gcda") continue;
    // A .gcda that is not a regular file would silently lose a run's counts.
    if (!it->is_regular_file(file_ec)) return fmt::format("{}: not a regular file", util::printable(p.string()));
    trees[p.lexically_relative(root).generic_string()].push_back(p.string());
  }
  if (ec) return fmt::format("cannot read the directory: {}", ec.message());
  return std::nullopt;
}

struct MergedFile {
  std::string relative;
  std::string bytes;
};

std::optional<format::DataFile> read_data_file(const std::string& path, std::string* error) {
  auto data = util::read_file(path);
  if (!data) {
    *error = data.error().message;
    return std::nullopt;
  }
  auto result = format::read_data(data->bytes());
  if (auto* h = std::get_if<format::HeaderError>(&result)) {
    *error = h->message;
    return std::nullopt;
  }
  auto& file = std::get<format::DataFile>(result);
  if (file.error) {
    *error = fmt::format("corrupt at byte {}: {}", file.error->offset, file.error->message);
    return std::nullopt;
  }
  return std::move(file);
}

// The merged bytes of one relative path, or the exit status after an error.
std::variant<std::string, int> merge_one(const std::vector<std::string>& paths) {
  std::string error;
  if (paths.size() == 1) {  // copied as it is, byte for byte
    auto data = util::read_file(paths[0]);
    if (!data) return fail(paths[0], data.error().message);
    return std::string(data->text());
  }
  auto sum = read_data_file(paths[0], &error);
  if (!sum) return fail(paths[0], error);
  for (size_t i = 1; i < paths.size(); ++i) {
    auto next = read_data_file(paths[i], &error);
    if (!next) return fail(paths[i], error);
    auto merged = model::merge_data(*sum, *next, &error);
    if (!merged) return fail(paths[i], fmt::format("cannot be added to {}: {}", util::printable(paths[0]), error));
    sum = std::move(merged);
  }
  std::vector<uint8_t> bytes = format::write_data(*sum);
  return std::string(bytes.begin(), bytes.end());
}

int merge_data_trees(const std::vector<std::string>& inputs, const std::string& out) {
  DataTrees trees;
  for (const std::string& in : inputs)
    if (auto err = collect_data_files(in, trees)) return fail(in, *err);
  if (trees.empty()) return fail(inputs[0], "no .gcda files in the given directories");
  std::error_code ec;
  if (fs::exists(out, ec) && !fs::is_directory(out, ec))
    return fail(out, "exists and is not a directory (merging .gcda trees writes a tree)");

  // Everything is computed before anything is written, so that an error in
  // any file leaves OUT as it was.
  std::vector<MergedFile> merged;
  for (const auto& [relative, paths] : trees) {
    auto result = merge_one(paths);
    if (auto* status = std::get_if<int>(&result)) return *status;
    merged.push_back({relative, std::move(std::get<std::string>(result))});
  }
  // All or nothing: every file is staged beside its target (directories
  // created as needed) before any is renamed into place; on a failure the
  // staged files and the directories created for them are removed.
  std::vector<fs::path> created_dirs;
  std::vector<std::pair<std::string, std::string>> staged;  // (temporary, target)
  auto roll_back = [&] {
    for (const auto& [tmp, target] : staged) util::discard_staged(tmp);
    for (auto it = created_dirs.rbegin(); it != created_dirs.rend(); ++it) fs::remove(*it, ec);
  };
  for (const MergedFile& m : merged) {
    fs::path target = fs::path(out) / m.relative;
    std::vector<fs::path> missing;
    for (fs::path d = target.parent_path(); !d.empty() && !fs::exists(d, ec); d = d.parent_path()) missing.push_back(d);
    for (auto it = missing.rbegin(); it != missing.rend(); ++it) {
      if (!fs::create_directory(*it, ec) || ec) {
        roll_back();
        return fail(it->string(), fmt::format("cannot create the directory: {}", ec ? ec.message() : "exists"));
      }
      created_dirs.push_back(*it);
    }
    if (fs::is_directory(target, ec)) {
      roll_back();
      return fail(target.string(), "is a directory");
    }
    std::string error;
    auto tmp = util::stage_file(target.string(), m.bytes);
    if (!tmp) {
      roll_back();
      return fail(target.string(), tmp.error().message);
    }
    staged.emplace_back(*tmp, target.string());
  }
  for (const auto& [tmp, target] : staged) {
    if (auto c = util::commit_staged(tmp, target); !c) return fail(target, c.error().message);
  }
  return 0;
}

// ---- tracefiles and covkit JSON -----------------------------------------

int merge_coverage_files(const std::vector<std::string>& inputs, const std::string& out, std::string format,
                         const std::string& test_name) {
  model::ProjectCov total;
  for (const std::string& in : inputs) {
    auto project = model::load_coverage_file(in);
    if (!project) return fail(in, project.error().message);
    model::merge_project(total, std::move(*project));
  }
  if (format.empty()) format = out.ends_with(".json") ? "json" : "lcov";
  std::string text = format == "json" ? report::render_covkit_json(total)
                                      : report::render_lcov(total, report::LcovOptions{test_name});
  std::string error;
  std::error_code ec;
  if (fs::is_directory(out, ec)) return fail(out, "is a directory (merging tracefiles writes one file)");
  if (auto w = util::write_file_atomic(out, text); !w) return fail(out, w.error().message);
  return 0;
}

}  // namespace

int run_merge_command(int argc, char** argv) {
  CLI::App app{kDescription, "covkit merge"};
  app.footer(kFooter);
  app.get_formatter()->column_width(30);
  std::string out, format, test_name;
  std::vector<std::string> inputs;
  app.add_option("-o,--output", out,
                 "Where the sum goes: a directory for .gcda trees (created if missing), a file for tracefiles")
      ->required()
      ->type_name("OUT");
  app.add_option("inputs", inputs, "Directories of .gcda files, or lcov tracefiles and covkit JSON files")
      ->required()
      ->type_name("IN");
  app.add_option("--format", format,
                 "Format of a merged tracefile: lcov or json [default: json when OUT ends in .json, else lcov]")
      ->check(CLI::IsMember({"lcov", "json"}))
      ->type_name("FORMAT");
  app.add_option("-t,--test-name", test_name, "TN: name in a merged lcov tracefile")->type_name("NAME");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);  // --help
    std::fprintf(stderr, "covkit merge: %s (see covkit merge --help)\n", e.what());
    return 1;
  }

  // All directories or all files: adding raw counters and adding line counts
  // are different operations whose results cannot be mixed.
  std::optional<std::string> a_dir, a_file;
  for (const std::string& in : inputs) {
    std::error_code ec;
    auto st = fs::status(in, ec);
    if (ec || !fs::exists(st)) return fail(in, ec ? ec.message() : "No such file or directory");
    (fs::is_directory(st) ? a_dir : a_file) = in;
  }
  if (a_dir && a_file)
    return fail(*a_file, fmt::format("is a file but {} is a directory: give .gcda trees or tracefiles, not both",
                                     util::printable(*a_dir)));
  if (a_dir) {
    if (!format.empty()) return fail(*a_dir, "--format applies to tracefiles; .gcda trees merge into a tree");
    return merge_data_trees(inputs, out);
  }
  return merge_coverage_files(inputs, out, format, test_name);
}

}  // namespace covkit::cli
