#include "cli/completion_command.h"

#include "cli/cli11.h"

#include <cstdio>
#include <string>

#include "cli/command_line.h"
#include "cli/command_spec.h"
#include "cli/completion_scripts.h"
#include "cli/output_options.h"

namespace covkit::cli {

namespace {

constexpr const char* kCompletionCommand = "covkit completion";

constexpr const char* kCompletionDescription =
    "Prints the shell completion script for covkit: every command and\n"
    "subcommand, every option, files and directories where they are wanted,\n"
    "process ids for PID and --pid, the words of options that take a fixed\n"
    "set, and the program's own completion after `trace record` and\n"
    "`sample record`. Started as covkit-gcov, covkit completes as covkit gcov.\n"
    "The script is made from covkit's own option definitions, so it always\n"
    "matches this covkit. The installed package has them in place already\n"
    "(bash-completion, zsh's vendor completions, fish's vendor completions).\n";

constexpr const char* kCompletionFooter =
    "Exit status: 0; 1 for a shell covkit has no script for, or an output that\n"
    "cannot be written.\n"
    "\n"
    "Examples:\n"
    "  source <(covkit completion bash)                        this bash only\n"
    "  covkit completion bash -o ~/.local/share/bash-completion/completions/covkit\n"
    "  covkit completion zsh -o ~/.zfunc/_covkit    with fpath+=(~/.zfunc) before compinit\n"
    "  covkit completion fish > ~/.config/fish/completions/covkit.fish\n"
    "\n"
    "Manual: docs/covkit.md (man covkit).";

}  // namespace

int run_completion_command(int argc, char** argv) {
  CLI::App app{kCompletionDescription, kCompletionCommand};
  app.footer(kCompletionFooter);
  std::string shell, out;
  app.add_option("SHELL", shell, "bash, zsh or fish")
      ->required()
      ->check(CLI::IsMember({"bash", "zsh", "fish"}));
  add_output_file_option(app, out, "the script", "standard output");
  if (auto status = parse_command_line(app, argc, argv)) return *status;
  const CommandSpec covkit = describe_covkit();
  const std::string script = shell == "bash"  ? bash_completion(covkit)
                             : shell == "zsh" ? zsh_completion(covkit)
                                              : fish_completion(covkit);
  return write_output_text(kCompletionCommand, out, script) ? 0 : 1;
}

}  // namespace covkit::cli
