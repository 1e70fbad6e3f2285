#pragma once

#include "cli/command_spec.h"

namespace covkit::cli {

// `covkit gprof [OPTIONS] PROG [GMON...]`: argv[0] is "gprof".
int run_gprof_command(int argc, char** argv);

// Its getopt options as data, for the shell completions.
CommandSpec describe_gprof_command();

}  // namespace covkit::cli
