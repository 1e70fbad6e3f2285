#pragma once
// covkit's commands, in the order `covkit --help` lists them: main() picks
// one by its first argument, and the shell completions (cli/completion_*)
// walk the same table, so a new command is completed as soon as it exists.
#include <span>
#include <string_view>

namespace covkit::cli {

struct CommandSpec;

struct CommandEntry {
  const char* name;
  const char* summary;  // for the list; each has a --help of its own
  int (*run)(int argc, char** argv);
  // Its command line as data, for a command that does not parse with CLI11
  // (gcov and gprof keep getopt); the others' are read from their Apps.
  CommandSpec (*describe)() = nullptr;
};

std::span<const CommandEntry> command_table();

// True when covkit was started under a gcov name (argv[0]'s last component):
// "gcov", "covkit-gcov", a versioned or target-prefixed gcov
// ("gcov-12", "x86_64-linux-gnu-gcov-12"). Then covkit is `covkit gcov`, for
// tools that take one gcov program (lcov --gcov-tool, gcovr
// --gcov-executable, CTest's CTEST_COVERAGE_COMMAND, Meson).
bool started_as_gcov(std::string_view argv0);

}  // namespace covkit::cli
