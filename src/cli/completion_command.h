#pragma once

namespace covkit::cli {

// `covkit completion SHELL`: prints the completion script for bash, zsh or
// fish (cli/completion_scripts.h); argv[0] is "completion".
int run_completion_command(int argc, char** argv);

}  // namespace covkit::cli
