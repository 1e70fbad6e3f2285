#pragma once
// What every covkit command does the same way at the command line: parse
// options with CLI11 (help, usage errors with a "did you mean"), print errors
// as one line "covkit CMD: FILE: what", and turn what escapes a command
// (allocation failure) into such a line instead of an abort.
#include "cli/cli11.h"
#include "cli/command_exit.h"

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "util/expected.h"

namespace covkit::cli {

// covkit's --help layout, which parse_command_line gives every command (a
// command may set one of its own derived from it, with its own usage line):
// an option's argument is one name (FILE, DIR, PID, N, "PATH ..." when
// repeatable), never CLI11's type and validator words ("INT",
// "TEXT:PATH(existing)", "MODE:{a,b}", "REQUIRED", "Excludes: --on"): a
// positional shows its name alone, an option its type_name() up to the
// first ':'. Required options are in the usage line instead ("covkit merge
// -o OUT [OPTIONS] IN..."), choices and exclusions in the descriptions.
// Option groups are one blank line apart (CLI11 puts two). The usage comes
// first, then the description, options and footer (exit status, examples):
// one layout for every command.
class HelpFormatter : public CLI::Formatter {
 public:
  std::string make_help(const CLI::App* app, std::string name, CLI::AppFormatMode mode) const override;
  std::string make_usage(const CLI::App* app, std::string name) const override;
  std::string make_option_opts(const CLI::Option* opt) const override;
};

// Parses; nullopt means "run the command", a value is the exit status now
// (0 after --help/--version, 1 after a usage error, which is printed as
// "covkit CMD: what (see covkit CMD --help)", with a suggestion for an
// unknown option that is close to a known one or that gcovr or lcov has).
// `app`'s name is the command ("covkit report").
std::optional<int> parse_command_line(CLI::App& app, int argc, char** argv);

// For a command made of subcommands (trace, live, sample), once its own
// dispatch found none in argv[1]: bare, its help on stderr and status 1
// (what there is to do); a word that names no subcommand, one line listing
// them with the closest ("did you mean 'report'?"), status 1. nullopt for
// an option (--help, a mistyped one), which parse_command_line handles.
std::optional<int> refuse_missing_subcommand(CLI::App& app, int argc, char** argv);

// A hint for an unknown option (spelled as given, "--txt"), or "" when there
// is none: "that is gcovr's; here use -s/--print-summary (...)" for an option
// of gcovr, lcov or genhtml, else "did you mean --X?" for a known option
// within two edits.
std::string suggest_option(const CLI::App& app, std::string_view unknown);

// Checks that an option is a plain finite number within [lo, hi] (or,
// with `above_lo`, (lo, hi]): "80", "2.5", "1e-3". CLI11's Range lets "nan"
// through (no comparison with it is false) and words "inf" with a bound of
// 300 digits; this refuses both, and trailing blanks, as "not a number".
CLI::Validator number_in(double lo, double hi, bool above_lo = false);

// Checks that an option is a whole number within [lo, hi], written in
// decimal digits alone: CLI11's Range says "Value abc not in range" and an
// unsigned option given "-1" only "Could not convert"; this says, as
// number_in does, "'abc' is not a whole number from 1 to 1024".
CLI::Validator whole_number_in(long long lo, long long hi);

// Refuses an empty path: an output option given '' (an unset $OUT in a
// script) must not quietly write nothing, or write into ".".
CLI::Validator non_empty_path();

// While one lives (on this thread), parse_command_line and
// refuse_missing_subcommand parse nothing: they hand the App they were given
// to `inspect` and return status 0. `covkit completion` walks every
// command's own definitions so (cli/command_spec), and the completions follow
// any change to them. Nothing of a command runs before its parse.
class AppInspection {
 public:
  explicit AppInspection(std::function<void(CLI::App&)> inspect);
  ~AppInspection();
  AppInspection(const AppInspection&) = delete;
  AppInspection& operator=(const AppInspection&) = delete;

 private:
  std::function<void(CLI::App&)> inspect_;
  std::function<void(CLI::App&)>* outer_;
};

// Runs a command's body; an allocation failure or another exception that
// escapes it becomes one line ("COMMAND: out of memory") and exit status 1.
int run_guarded(std::string_view command, const std::function<int()>& body);

}  // namespace covkit::cli
