#include "cli/sample_command.h"

#include "cli/cli11.h"

#include <cstdio>
#include <cstring>
#include <string>

#include "cli/command_line.h"

namespace covkit::cli {

namespace {

constexpr const char* kSampleDescription =
    "Coverage of programs that were not built for it, by sampling them while\n"
    "they run: no rebuild, no instrumentation, no PMU needed.\n"
    "\n"
    "  covkit sample record -- ./prog args     writes ./covkit-sample.data\n"
    "  covkit sample report covkit-sample.data coverage of the sources (every covkit report output)\n"
    "  covkit sample compare DIR --against B   recall and precision against a --coverage build\n"
    "  covkit sample dump                      the samples as text\n"
    "  covkit sample import-perf perf.data     perf's samples (branch stacks, where there is a PMU)\n";

constexpr const char* kSampleFooter =
    "Each subcommand has its own --help. The recording format is\n"
    "docs/sample-format.md.";

struct Entry {
  const char* name;
  int (*run)(int, char**);
};
constexpr Entry kSubcommands[] = {
    {"record", run_sample_record},   {"report", run_sample_report},           {"compare", run_sample_compare},
    {"dump", run_sample_dump},       {"import-perf", run_sample_import_perf}};

}  // namespace

int run_sample_command(int argc, char** argv) {
  // The subcommands parse their own options (record passes everything after
  // the program to it untouched), so they are dispatched before CLI11.
  if (argc >= 2)
    for (const Entry& e : kSubcommands)
      if (std::strcmp(argv[1], e.name) == 0) return e.run(argc - 1, argv + 1);
  CLI::App app{kSampleDescription, "covkit sample"};
  app.footer(kSampleFooter);
  app.require_subcommand(1);
  app.add_subcommand("record", "Run a program under the sampling runtime; write a recording directory")
      ->prefix_command();
  app.add_subcommand("report", "Coverage of the sources from recordings, as covkit report writes it")->prefix_command();
  app.add_subcommand("compare", "Recall and precision of recordings against a --coverage build's truth")
      ->prefix_command();
  app.add_subcommand("dump", "Print a recording's images, mappings and samples as text")->prefix_command();
  app.add_subcommand("import-perf", "Save perf's samples (perf.data, or perf script -F pid,tid,ip,brstack text) as a recording")
      ->prefix_command();
  if (auto status = refuse_missing_subcommand(app, argc, argv)) return *status;
  if (auto status = parse_command_line(app, argc, argv)) return *status;
  return 0;
}

}  // namespace covkit::cli
