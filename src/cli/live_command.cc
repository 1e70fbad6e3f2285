#include "cli/live_command.h"

#include "cli/cli11.h"

#include <cstdio>
#include <cstring>
#include <string>

#include "cli/command_line.h"

namespace covkit::cli {

namespace {

constexpr const char* kLiveDescription =
    "Reads the coverage counters of running programs built with --coverage\n"
    "(servers, daemons: programs that never exit and so never write their\n"
    ".gcda files) straight out of their memory, without a rebuild, a library\n"
    "to link or any help from the program.\n"
    "\n"
    "  covkit live dump PID -o snap/      snap/<each .gcda's absolute path>\n"
    "  covkit live dump --reset PID       into the program's own .gcda files\n"
    "  covkit live reset PID [SOURCE...]  zero all counters, or some objects'\n"
    "  covkit live report PID --html out/ the report, with no .gcda on disk\n"
    "  covkit live unpack uart.log -o cov/  a firmware's stream into .gcda files\n";

constexpr const char* kLiveFooter =
    "Each subcommand has its own --help; the manual is docs/covkit-live.md.";

}  // namespace

int run_live_command(int argc, char** argv) {
  // The subcommands parse their own options.
  if (argc >= 2) {
    if (std::strcmp(argv[1], "dump") == 0) return run_live_dump(argc - 1, argv + 1);
    if (std::strcmp(argv[1], "reset") == 0) return run_live_reset(argc - 1, argv + 1);
    if (std::strcmp(argv[1], "report") == 0) return run_live_report(argc - 1, argv + 1);
    if (std::strcmp(argv[1], "unpack") == 0) return run_live_unpack(argc - 1, argv + 1);
  }
  CLI::App app{kLiveDescription, "covkit live"};
  app.footer(kLiveFooter);
  app.require_subcommand(1);
  app.add_subcommand("dump", "Write the counters of a running process as .gcda files")->prefix_command();
  app.add_subcommand("reset", "Zero the counters of a running process (all, or some objects')")->prefix_command();
  app.add_subcommand("report", "Report on a running process's coverage without files on disk")->prefix_command();
  app.add_subcommand("unpack", "Turn a stream of counters from firmware into .gcda files")->prefix_command();
  if (auto status = refuse_missing_subcommand(app, argc, argv)) return *status;
  if (auto status = parse_command_line(app, argc, argv)) return *status;
  return 0;
}

}  // namespace covkit::cli
