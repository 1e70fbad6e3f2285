// covkit: one tool for C/C++ coverage. Subcommands are thin wrappers over the
// library in src/; `covkit gcov` keeps gcov's own option syntax.
#include <CLI/CLI.hpp>

#include <cstdio>
#include <cstring>

#include "cli/gcov_command.h"
#include "cli/merge_command.h"
#include "cli/report_command.h"
#include "cli/trace_command.h"
#include "cli/version.h"

int main(int argc, char** argv) {
  // Installed as (or linked to) `gcov`, covkit is gcov: tools such as lcov's
  // --gcov-tool take one program name, not a command with a subcommand.
  const char* base = std::strrchr(argv[0], '/');
  base = base ? base + 1 : argv[0];
  if (std::strncmp(base, "gcov", 4) == 0) return covkit::cli::run_gcov_command(argc, argv);
  // `covkit gcov` parses its options exactly like gcov (getopt_long), so it
  // is dispatched before CLI11 sees them.
  if (argc >= 2 && std::strcmp(argv[1], "gcov") == 0) return covkit::cli::run_gcov_command(argc - 1, argv + 1);

  if (argc >= 2 && std::strcmp(argv[1], "merge") == 0) return covkit::cli::run_merge_command(argc - 1, argv + 1);
  if (argc >= 2 && std::strcmp(argv[1], "report") == 0) return covkit::cli::run_report_command(argc - 1, argv + 1);
  if (argc >= 2 && std::strcmp(argv[1], "trace") == 0) return covkit::cli::run_trace_command(argc - 1, argv + 1);

  CLI::App app{"covkit: what your C and C++ code does when it runs (coverage, call tracing, sampling)"};
  app.set_version_flag("--version", std::string("covkit ") + covkit::cli::kVersion);
  app.require_subcommand(1);
  app.footer(
      "Subcommands:\n"
      "  gcov     drop-in replacement for GCC's gcov (same options, same output);\n"
      "           see `covkit gcov --help`\n"
      "  report   project-wide reports: lcov, Cobertura, SonarQube, Coveralls, JSON,\n"
      "           HTML, Markdown, terminal; filters, merging, gates, diff coverage;\n"
      "           see `covkit report --help`\n"
      "  merge    add .gcda trees, lcov tracefiles or covkit JSON files together;\n"
      "           see `covkit merge --help`\n"
      "  trace    record every call of a program built with -finstrument-functions;\n"
      "           profiles, call trees, call graphs, timelines; see `covkit trace --help`\n");
  auto* gcov = app.add_subcommand("gcov", "Drop-in gcov: annotated sources, JSON, summaries");
  gcov->prefix_command();
  app.add_subcommand("report", "Project-wide coverage reports")->prefix_command();
  app.add_subcommand("merge", "Add coverage data together")->prefix_command();
  app.add_subcommand("trace", "Record and report function calls (-finstrument-functions)")->prefix_command();
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  }
  return 0;
}
