#pragma once
// Options of `covkit gcov`: gcov 12's, with the same letters, long names and
// getopt semantics (bundling, permutation, abbreviations, @response files).
#include <optional>
#include <string>
#include <vector>

#include "cli/command_spec.h"
#include "report/gcov/gcov_run.h"

namespace covkit::cli {

using report::GcovOptions;

enum class ParseOutcome { kRun, kExitSuccess, kExitFailure };

// Parses argv (argv[0] is the command name). Prints help/version/errors itself.
ParseOutcome parse_gcov_options(int argc, char** argv, GcovOptions& out);

void print_gcov_usage(bool error);

// The options above as data, for the shell completions.
CommandSpec describe_gcov_command();

}  // namespace covkit::cli
