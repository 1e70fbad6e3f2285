// covkit: one tool for C/C++ coverage and call tracing. main() only picks the
// subcommand; each parses its own options (`covkit gcov` keeps gcov's own
// option syntax, so nothing may parse before it).
#include <algorithm>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "cli/command_exit.h"
#include "cli/command_table.h"
#include "cli/gcov_command.h"
#include "cli/version.h"

namespace {

using covkit::cli::command_table;
using covkit::cli::CommandEntry;

void print_usage(FILE* to) {
  std::fprintf(to,
               "covkit %s: what your C and C++ code does when it runs\n"
               "\n"
               "Usage: covkit COMMAND [OPTIONS] [ARGS]\n"
               "\n"
               "Commands:\n",
               covkit::cli::kVersion);
  // A summary's further lines are indented under its first.
  for (const CommandEntry& s : command_table()) {
    std::fprintf(to, "  %-10s ", s.name);
    std::string_view rest = s.summary;
    for (size_t nl; (nl = rest.find('\n')) != std::string_view::npos; rest.remove_prefix(nl + 1))
      std::fprintf(to, "%.*s\n%13s", int(nl), rest.data(), "");
    std::fprintf(to, "%.*s\n", int(rest.size()), rest.data());
  }
  std::fprintf(to,
               "\n"
               "`covkit COMMAND --help` (or `covkit help COMMAND`) lists a command's\n"
               "options; `man covkit-COMMAND` (docs/covkit-COMMAND.md) is its manual.\n"
               "Started as `gcov` or `covkit-gcov` (a symbolic link; the install makes\n"
               "covkit-gcov), covkit is `covkit gcov`.\n"
               "\n"
               "Options:\n"
               "  -h, --help     this list\n"
               "  -V, --version  covkit's version, commit and the optional parts built in\n"
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
  if (covkit::cli::started_as_gcov(argv[0])) {
    const char* base = std::strrchr(argv[0], '/');
    return covkit::cli::checked_stdout(base ? base + 1 : argv[0], covkit::cli::run_gcov_command(argc, argv));
  }

  if (argc < 2) {
    print_usage(stdout);
    return 1;
  }
  // `covkit help COMMAND [SUBCOMMAND]` is `covkit COMMAND [SUBCOMMAND] --help`,
  // as with git and cargo.
  std::vector<char*> help_argv;
  if (argc > 2 && std::string_view(argv[1]) == "help") {
    static char help_flag[] = "--help";
    help_argv.assign(argv + 1, argv + argc);
    help_argv.push_back(help_flag);
    help_argv.push_back(nullptr);
    argv = help_argv.data();
    argc = int(help_argv.size()) - 1;
  }
  const std::string_view word = argv[1];
  for (const CommandEntry& s : command_table())
    if (word == s.name) return covkit::cli::checked_stdout("covkit " + std::string(word), s.run(argc - 1, argv + 1));
  if (word == "-h" || word == "--help" || word == "help") {
    print_usage(stdout);
    return 0;
  }
  if (word == "--version" || word == "-V") {
    std::printf("covkit %s\ncommit %s\nbuilt with:\n", covkit::cli::kVersion, covkit::cli::build_commit());
    // One part per line, indented.
    for (std::string_view parts = covkit::cli::build_parts(); !parts.empty();) {
      const size_t end = std::min(parts.find('\n'), parts.size());
      std::printf("  %.*s\n", int(end), parts.data());
      parts.remove_prefix(std::min(end + 1, parts.size()));
    }
    return 0;
  }
  // A mistyped option is compared with the options, a word with the commands.
  std::vector<std::string> names;
  if (word.starts_with("-"))
    names = {"--help", "--version"};
  else
    for (const CommandEntry& s : command_table()) names.emplace_back(s.name);
  const std::string near = covkit::cli::closest(names, word);
  return covkit::cli::fail("covkit", "",
                           std::string(word.starts_with("-") ? "unknown option '" : "unknown command '") +
                               std::string(word) + "'" + (near.empty() ? "" : "; did you mean '" + near + "'?") +
                               " (see covkit --help)");
}
