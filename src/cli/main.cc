// covkit: one tool for C/C++ coverage and call tracing. main() only picks the
// subcommand; each parses its own options (`covkit gcov` keeps gcov's own
// option syntax, so nothing may parse before it).
#include <csignal>
#include <cstdio>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "cli/command_line.h"
#include "cli/gcov_command.h"
#include "cli/gprof_command.h"
#include "cli/live_command.h"
#include "cli/merge_command.h"
#include "cli/report_command.h"
#include "cli/sample_command.h"
#include "cli/trace_command.h"
#include "cli/version.h"

namespace {

struct Subcommand {
  const char* name;
  const char* summary;  // for the list; each has a --help of its own
  int (*run)(int argc, char** argv);
};

constexpr Subcommand kSubcommands[] = {
    {"gcov", "drop-in replacement for GCC's gcov: same options, same .gcov and JSON output",
     covkit::cli::run_gcov_command},
    {"report", "project-wide reports: lcov, Cobertura, SonarQube, Coveralls, JSON, HTML,\n"
               "           Markdown, terminal; filters, merging, gates, diff coverage",
     covkit::cli::run_report_command},
    {"merge", "add .gcda trees, lcov tracefiles or covkit JSON files together", covkit::cli::run_merge_command},
    {"trace", "record every call of a program built with -finstrument-functions;\n"
              "           profiles, call trees, call graphs, timelines, replay",
     covkit::cli::run_trace_command},
    {"gprof", "gprof's flat profile and call graph of a program built with -pg (gmon.out),\n"
              "           byte for byte; or the call graph drawn (DOT, SVG, Callgrind)",
     covkit::cli::run_gprof_command},
    {"live", "read (dump, reset) the coverage counters of running programs built with\n"
             "           --coverage, without stopping them for long",
     covkit::cli::run_live_command},
    {"sample", "coverage of programs built without --coverage: one-shot breakpoints\n"
               "           (exact blocks) or sampled branch vectors; report, compare",
     covkit::cli::run_sample_command},
};

void print_usage(FILE* to) {
  std::fprintf(to,
               "covkit %s: what your C and C++ code does when it runs\n"
               "\n"
               "Usage: covkit COMMAND [OPTIONS] [ARGS]\n"
               "\n"
               "Commands:\n",
               covkit::cli::kVersion);
  for (const Subcommand& s : kSubcommands) std::fprintf(to, "  %-8s %s\n", s.name, s.summary);
  std::fprintf(to,
               "\n"
               "`covkit COMMAND --help` lists a command's options; docs/covkit-COMMAND.md is\n"
               "its manual. Installed or linked as `gcov`, covkit is `covkit gcov`.\n"
               "\n"
               "Options:\n"
               "  -h, --help     this list\n"
               "  --version      covkit's version\n"
               "\n"
               "Exit status: a command's own; 1 for no or an unknown command.\n");
}

}  // namespace

int main(int argc, char** argv) {
  // A write past the file size limit (ulimit -f) fails with EFBIG, which
  // every output path reports in one line, instead of killing covkit by
  // SIGXFSZ halfway through a file. Caught rather than ignored: exec resets
  // a caught signal to its default, so the programs covkit starts keep it.
  std::signal(SIGXFSZ, [](int) {});
  // Installed as (or linked to) `gcov`, covkit is gcov: tools such as lcov's
  // --gcov-tool take one program name, not a command with a subcommand.
  const char* base = std::strrchr(argv[0], '/');
  base = base ? base + 1 : argv[0];
  if (std::strncmp(base, "gcov", 4) == 0)
    return covkit::cli::checked_stdout(base, covkit::cli::run_gcov_command(argc, argv));

  if (argc < 2) {
    print_usage(stdout);
    return 1;
  }
  const std::string_view word = argv[1];
  for (const Subcommand& s : kSubcommands)
    if (word == s.name) return covkit::cli::checked_stdout("covkit " + std::string(word), s.run(argc - 1, argv + 1));
  if (word == "-h" || word == "--help" || word == "help") {
    print_usage(stdout);
    return 0;
  }
  if (word == "--version" || word == "-V") {
    std::printf("covkit %s\n", covkit::cli::kVersion);
    return 0;
  }
  // A mistyped option is compared with the options, a word with the commands.
  std::vector<std::string> names;
  if (word.starts_with("-"))
    names = {"--help", "--version"};
  else
    for (const Subcommand& s : kSubcommands) names.emplace_back(s.name);
  const std::string near = covkit::cli::closest(names, word);
  return covkit::cli::fail("covkit", "",
                           std::string(word.starts_with("-") ? "unknown option '" : "unknown command '") +
                               std::string(word) + "'" + (near.empty() ? "" : "; did you mean '" + near + "'?") +
                               " (see covkit --help)");
}
