#pragma once
// covkit's command line as data, for the shell completions: every command
// and subcommand with its options, what their values are (files,
// directories, processes, a fixed set of words) and what its free arguments
// are. Made from the definitions themselves: each CLI11 App as its command
// builds it (through AppInspection, so nothing is described twice), and the
// getopt tables of `covkit gcov` and `covkit gprof`.
#include "cli/cli11.h"

#include <getopt.h>

#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace covkit::cli {

// What a value or a free argument is, for completing it.
enum class ValueKind {
  kNone,       // a flag: no value
  kFile,       // a path (file or directory)
  kDirectory,  // a directory
  kProcess,    // a running process's id
  kChoice,     // one of OptionSpec::choices
  kWord,       // anything else: nothing to complete
};

struct OptionSpec {
  std::vector<std::string> names;  // as typed: "-o", "--output"
  ValueKind value = ValueKind::kNone;
  std::string value_name;            // "FILE", as --help shows it
  std::vector<std::string> choices;  // kChoice's words
  bool attached_only = false;        // gprof's -pSYM: the value is never the next word
  bool repeatable = false;
  std::string help;  // the description's first line
};

struct ArgumentSpec {
  std::string name;  // "PID", "PATH"
  ValueKind kind = ValueKind::kWord;
  bool repeatable = false;
  std::vector<std::string> choices;  // kChoice's words
};

struct CommandSpec {
  std::string name;     // "record" (the top: "covkit")
  std::string summary;  // one line
  std::vector<OptionSpec> options;
  std::vector<ArgumentSpec> arguments;
  bool runs_program = false;  // after the options, a program and its own arguments
  std::vector<CommandSpec> subcommands;
};

// What a value named `name` (an option's value or a positional) is:
// "FILE", "PATH", "OUT" are files, "DIR", "BUILD" directories, "PID" a process.
ValueKind value_kind_of(std::string_view name);

// A CLI11 App's options, positionals and subcommands.
CommandSpec describe_app(CLI::App& app);

// A getopt command: `longs` (ended by a null name) and `shorts` (getopt's
// optstring); `usage` is its --help text, where each option's description
// is found ("  -a, --all-blocks   Show ..."); `value_names` names each
// option's value by its getopt value ('o' -> "DIR|FILE").
struct GetoptValueName {
  int option;
  const char* name;
};
CommandSpec describe_getopt(std::string_view name, std::string_view summary, const option* longs,
                            std::string_view shorts, std::string_view usage,
                            std::span<const GetoptValueName> value_names);

// Every command of a tree with its path, top first ("covkit", "covkit
// trace", "covkit trace record"): what each completion script walks.
struct CommandPath {
  std::string path;
  const CommandSpec* spec;
};
std::vector<CommandPath> command_paths(const CommandSpec& top);

// covkit's whole tree: its own options, every command of command_table(),
// and `help`, whose words are those commands and their subcommands.
CommandSpec describe_covkit();

}  // namespace covkit::cli
