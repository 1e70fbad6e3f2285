#include "cli/merge_command.h"

#include "cli/cli11.h"
#include <fmt/format.h>

#include <filesystem>
#include <optional>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

#include "clang/clang_inputs.h"
#include "clang/profdata_writer.h"
#include "cli/command_line.h"
#include "cli/output_options.h"
#include "model/coverage_merge.h"
#include "model/data_trees.h"
#include "model/load_coverage_file.h"
#include "report/covkit_json_writer.h"
#include "report/lcov_writer.h"
#include "util/fast_allocator.h"
#include "util/file_io.h"
#include "util/printable.h"

namespace covkit::cli {

namespace {

namespace fs = std::filesystem;

constexpr const char* kMergeDescription =
    "Adds coverage data together.\n"
    "\n"
    "Directories: .gcda trees (one per test run, GCOV_PREFIX directories, build\n"
    "trees). Files are matched by their path below each directory and added as\n"
    "libgcov adds runs (counters and run counts add up); OUT is a directory that\n"
    "receives the same tree, which gcov, lcov or `covkit report` then read as if\n"
    "every run had happened in one place (OUT may be one of the trees: its\n"
    "other files stay). A file found in only some trees is copied as it is.\n"
    "Data of different builds of an object (another stamp or function\n"
    "checksum) is an error, and then nothing is written.\n"
    "\n"
    "All or nothing: the new OUT is built beside it (a hidden .OUT.covkit-\n"
    "staging-PID-* directory, with hard links to OUT's other files) and swapped\n"
    "in with one rename. Killed at any moment, OUT holds the old tree or the\n"
    "new one; the next run removes what a killed one left behind. Symbolic\n"
    "links in OUT are never written through.\n"
    "\n"
    "Files: lcov tracefiles (.info) and covkit JSON files, added by lcov's rules\n"
    "(line counts add; branches add by position on their line; functions by\n"
    "name) into one file OUT, or standard output when OUT is '-' (as lcov's -o -).\n"
    "\n"
    "Clang profiles: .profraw files (what programs built with\n"
    "-fprofile-instr-generate write) and .profdata files, added as\n"
    "`llvm-profdata merge` adds them, into one indexed profile OUT (.profdata,\n"
    "version 7, which llvm-cov 13 and later and `covkit report` read). A damaged\n"
    "profile is an error and nothing is written; a function whose counters\n"
    "differ in number from an earlier profile's (another build) is left out of\n"
    "that profile with a warning, as llvm-profdata does. Value profiles (for\n"
    "optimization, not coverage) are not kept.\n";

constexpr const char* kMergeFooter =
    "Exit status: 0 on success, 1 on any error (one line on stderr).\n"
    "\n"
    "Examples:\n"
    "  covkit merge -o merged run1/ run2/ run3/     add three GCOV_PREFIX trees\n"
    "  covkit merge -o all.info unit.info integration.info\n"
    "  covkit merge -o all.json a.json b.info       lcov in, covkit JSON out\n"
    "  covkit merge --format lcov -o all.txt a.json b.json\n"
    "  covkit merge -o all.profdata run1/default.profraw run2/*.profraw\n"
    "\n"
    "Manual: docs/covkit-merge.md (man covkit-merge).";

constexpr const char* kMergeCommand = "covkit merge";

int merge_coverage_files(const std::vector<std::string>& inputs, const std::string& out, std::string format,
                         const std::string& test_name) {
  model::ProjectCov total;
  for (const std::string& in : inputs) {
    std::vector<std::string> warnings;
    auto added = model::add_coverage_file(total, in, warnings);
    if (!added) return fail(kMergeCommand, in, added.error().message);
    for (const std::string& w : warnings) std::fprintf(stderr, "%s: warning: %s\n", kMergeCommand, util::printable(w).c_str());
  }
  if (format.empty()) format = out.ends_with(".json") ? "json" : "lcov";
  // Without --test-name the inputs' own test name, when they share one; lcov -a
  // keeps records of different test names apart, covkit adds them up.
  std::string tn = test_name;
  if (tn.empty() && total.test_names.size() == 1) tn = total.test_names[0];
  if (test_name.empty() && total.test_names.size() > 1 && format == "lcov")
    std::fprintf(stderr, "%s: warning: the inputs have %zu test names (%s, ...); their counts are added up under "
                         "one empty TN (name it with --test-name)\n",
                 kMergeCommand, total.test_names.size(), util::printable(total.test_names[0]).c_str());
  std::string text = format == "json" ? report::render_covkit_json(total)
                                      : report::render_lcov(total, report::LcovOptions{tn});
  std::error_code ec;
  if (fs::is_directory(out, ec)) return fail(kMergeCommand, out, "is a directory (merging tracefiles writes one file)");
  if (auto w = util::write_file_or_stdout(out, text); !w)
    return fail(kMergeCommand, out == "-" ? "<stdout>" : out, w.error().message);
  return 0;
}

// Clang profiles into one .profdata: all of them readable, or nothing written.
int merge_profiles(const std::vector<std::string>& inputs, const std::string& out) {
  clang::ProfileCounts total;
  clang::NameTableCache names;  // runs of one program share their names
  for (const std::string& in : inputs) {
    clang::LoadedProfiles one = clang::load_profiles({in}, 1, &names);
    if (one.damaged > 0) {
      // The loader's words, without its "left out": here nothing is written.
      std::string why = one.warnings.empty() ? std::string("cannot be read") : one.warnings.front();
      if (why.ends_with(", left out")) why.resize(why.size() - std::string_view(", left out").size());
      std::fprintf(stderr, "%s: %s\n", kMergeCommand, util::printable(why).c_str());
      return 1;
    }
    if (total.variant_set && (total.variant & clang::kVariantIrLevel) != (one.counts.variant & clang::kVariantIrLevel))
      return fail(kMergeCommand, in, "an IR-level profile (-fprofile-generate) cannot be added to front-end ones "
                                     "(-fprofile-instr-generate), nor the other way round");
    total.variant = one.counts.variant;
    total.variant_set = true;
    for (const std::string& w : one.warnings) std::fprintf(stderr, "%s: warning: %s\n", kMergeCommand, util::printable(w).c_str());
    for (std::string_view name : one.counts.names())
      for (const clang::ProfileCounts::Entry& e : *one.counts.entries(name))
        if (total.add(name, e.hash, e.counts) == clang::ProfileCounts::Added::kCountMismatch)
          std::fprintf(stderr, "%s: warning: %s: function %s has another number of counters than in the profiles "
                       "before (another build of the program?): left out of the sum\n",
                       kMergeCommand, util::printable(in).c_str(), util::printable(name).c_str());
  }
  std::error_code ec;
  if (fs::is_directory(out, ec)) return fail(kMergeCommand, out, "is a directory (merging profiles writes one file)");
  if (auto w = util::write_file_or_stdout(out, clang::write_profdata(total)); !w)
    return fail(kMergeCommand, out == "-" ? "<stdout>" : out, w.error().message);
  return 0;
}

int merge(const std::vector<std::string>& inputs, const std::string& out, const std::string& format,
          const std::string& test_name) {
  // All directories or all files: adding raw counters and adding line counts
  // are different operations whose results cannot be mixed.
  std::optional<std::string> a_dir, a_file;
  for (const std::string& in : inputs) {
    std::error_code ec;
    auto st = fs::status(in, ec);
    if (ec || !fs::exists(st)) return fail(kMergeCommand, in, ec ? ec.message() : "No such file or directory");
    (fs::is_directory(st) ? a_dir : a_file) = in;
  }
  if (a_dir && a_file)
    return fail(kMergeCommand, *a_file,
                fmt::format("is a file but {} is a directory: give .gcda trees or tracefiles, not both",
                            util::printable(*a_dir)));
  if (a_file) {
    // Clang profiles add up into a profile; tracefiles into a tracefile.
    std::optional<std::string> a_profile, a_tracefile;
    for (const std::string& in : inputs) {
      const clang::FileKind k = clang::file_kind(in);
      const bool profile = k == clang::FileKind::kProfraw || k == clang::FileKind::kProfdata ||
                           (k == clang::FileKind::kOther && clang::profile_name(in));
      (profile ? a_profile : a_tracefile) = in;
    }
    if (a_profile && a_tracefile)
      return fail(kMergeCommand, *a_tracefile,
                  fmt::format("is not a clang profile but {} is: profiles add up into a profile, tracefiles into a "
                              "tracefile (`covkit report` reads both kinds together)",
                              util::printable(*a_profile)));
    if (a_profile) {
      if (!format.empty()) return fail(kMergeCommand, *a_profile, "--format applies to tracefiles; clang profiles merge into a .profdata file");
      if (!test_name.empty())
        return fail(kMergeCommand, *a_profile, "--test-name applies to lcov tracefiles; a profile has no test name");
      if (out.empty()) return fail(kMergeCommand, "", "clang profiles merge into a .profdata file: give -o FILE");
      return merge_profiles(inputs, out);
    }
    return merge_coverage_files(inputs, out.empty() ? "-" : out, format, test_name);
  }
  if (!format.empty()) return fail(kMergeCommand, *a_dir, "--format applies to tracefiles; .gcda trees merge into a tree");
  if (out == "-") return fail(kMergeCommand, "", ".gcda trees merge into a tree, which standard output (-o -) cannot hold");
  if (out.empty()) return fail(kMergeCommand, "", ".gcda trees merge into a tree: give -o DIR");
  if (auto w = model::write_merged_data_trees(inputs, out); !w) return fail(kMergeCommand, "", w.error().message);
  return 0;
}

}  // namespace

int run_merge_command(int argc, char** argv) {
  CLI::App app{kMergeDescription, kMergeCommand};
  app.footer(kMergeFooter);
  app.get_formatter()->column_width(30);
  std::string out, format, test_name;
  std::vector<std::string> inputs;
  OptionalOutput json;
  app.add_option("-o,--output", out,
                 "Where the sum goes: a directory for .gcda trees (created if missing), a file for tracefiles "
                 "('-': standard output, the default for them) or profiles")
      ->type_name("OUT")
      ->check(non_empty_path());
  app.add_option("IN", inputs, "Directories of .gcda files, lcov tracefiles and covkit JSON files, or clang profiles")
      ->type_name("IN");
  app.add_option("--format", format,
                 "Format of a merged tracefile: lcov or json [default: json when OUT ends in .json, else lcov]")
      ->check(CLI::IsMember({"lcov", "json"}))
      ->type_name("FORMAT");
  add_json_option(app, json, "the merged tracefile (covkit JSON; as --format json)");
  app.add_option("--test-name", test_name, "TN: name in a merged lcov tracefile (default: the inputs' own, when they all have the same)")->type_name("NAME");
  add_deprecated_letter(app, "-t", "--test-name", test_name);
  if (auto rc = parse_command_line(app, argc, argv)) return *rc;
  util::use_fast_allocator();  // reads much, allocates much: mimalloc
  if (json.asked) {
    take_back_inputs(json, inputs);
    // An existing tracefile after --json is an input to add, never a file to
    // overwrite (`covkit merge --json a.info b.info`).
    if (std::error_code ec; !json.file.empty() && json.file != out && std::filesystem::is_regular_file(json.file, ec))
      inputs.insert(inputs.begin(), std::exchange(json.file, std::string()));
    if (!format.empty() && format != "json") return fail(kMergeCommand, "", "--json and --format " + format + " disagree");
    format = "json";
    if (!json.file.empty()) {
      if (!out.empty() && out != json.file) return fail(kMergeCommand, "", "--json " + json.file + " and -o " + out + " are two places for one output");
      out = json.file;
    }
  }
  if (inputs.empty()) return fail(kMergeCommand, "", "nothing to merge (see covkit merge --help)");
  return run_guarded(kMergeCommand, [&] { return merge(inputs, out, format, test_name); });
}

}  // namespace covkit::cli
