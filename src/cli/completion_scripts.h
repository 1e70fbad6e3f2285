#pragma once
// Shell completion scripts for covkit, written from its command line as
// data (cli/command_spec): every command and subcommand, every option,
// files and directories completed as such, process ids from the running
// processes, fixed sets of words, and a program's own completion after
// `trace record`/`sample record`. Started as covkit-gcov, covkit completes
// as `covkit gcov`.
#include <string>

#include "cli/command_spec.h"

namespace covkit::cli {

std::string bash_completion(const CommandSpec& covkit);  // cli/completion_bash.cc
std::string zsh_completion(const CommandSpec& covkit);   // cli/completion_zsh.cc
std::string fish_completion(const CommandSpec& covkit);  // cli/completion_fish.cc

}  // namespace covkit::cli
