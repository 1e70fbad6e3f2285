#include <fmt/format.h>
#include <fmt/ranges.h>

#include "cli/completion_scripts.h"

namespace covkit::cli {

namespace {

// A fish word in single quotes.
std::string fish_quoted(std::string_view text) {
  std::string out = "'";
  for (char c : text) {
    if (c == '\'' || c == '\\') out += '\\';
    out += c;
  }
  return out + "'";
}

// What completes a value or free argument of `kind`.
std::string fish_values(ValueKind kind, const std::vector<std::string>& choices) {
  switch (kind) {
    case ValueKind::kFile: return "-F";
    case ValueKind::kDirectory: return "-x -a '(__fish_complete_directories (commandline -ct))'";
    case ValueKind::kProcess: return "-x -a '(__fish_complete_pids)'";
    case ValueKind::kChoice: return fmt::format("-x -a {}", fish_quoted(fmt::format("{}", fmt::join(choices, " "))));
    case ValueKind::kNone: return "";
    case ValueKind::kWord: return "-x";
  }
  return "-x";
}

// The fixed part: which command the words typed so far name.
constexpr const char* kFishFunctions = R"(
# The command the words before the cursor name ("", "trace", "trace
# record"), then, after a tab, the position of the program's word when the
# command runs one and it has been typed.
function __covkit_command
    set -l words (commandline -opc)
    set -l path
    set -l skip 0
    set -l free 0
    set -l dashdash 0
    set -l i 1
    if string match -qr -- '(^|/|-)gcov(-[0-9.]+)?$' $words[1]
        set path gcov
    end
    for w in $words[2..-1]
        set i (math $i + 1)
        if test $skip = 1
            set skip 0
            continue
        end
        if test $dashdash = 0; and string match -q -- '-?*' $w
            if test "$w" = --
                set dashdash 1
            else if contains -- "$path $w" $__covkit_value_options
                set skip 1
            end
            continue
        end
        if test $free = 0; and test $dashdash = 0; and contains -- "$path $w" $__covkit_subcommands
            set path (string trim -- "$path $w")
            continue
        end
        if contains -- "$path" $__covkit_program_commands
            printf '%s\t%s\n' "$path" $i
            return
        end
        set free (math $free + 1)
    end
    printf '%s\n' "$path"
end

function __covkit_at --description 'Is the command line at covkit command $argv[1] (before its program)?'
    set -l at (__covkit_command)
    test (count (string split \t -- $at)) = 1; and test "$at" = "$argv[1]"
end

function __covkit_in_program --description 'Is the command line in the program of covkit command $argv[1]?'
    set -l at (string split \t -- (__covkit_command))
    test (count $at) = 2; and test "$at[1]" = "$argv[1]"
end

# The program's own completions, from its word on.
function __covkit_complete_program
    set -l at (string split \t -- (__covkit_command))
    set -l words (commandline -opc) (commandline -ct)
    complete -C (string join -- ' ' (string escape -- $words[$at[2]..-1]))
end
)";

}  // namespace

std::string fish_completion(const CommandSpec& covkit) {
  std::string subcommands, value_options, program_commands, completions;
  for (const CommandPath& p : command_paths(covkit)) {
    const size_t first_line = completions.size();
    const CommandSpec& c = *p.spec;
    // Paths without the leading "covkit": "" for the top.
    const std::string path = p.path == covkit.name ? "" : p.path.substr(covkit.name.size() + 1);
    const std::string at = fmt::format("-n {}", fish_quoted("__covkit_at " + fish_quoted(path)));
    for (const CommandSpec& s : c.subcommands) {
      subcommands += " " + fish_quoted(path + " " + s.name);
      completions += fmt::format("complete -c covkit {} -f -a {} -d {}\n", at, fish_quoted(s.name), fish_quoted(s.summary));
    }
    for (const OptionSpec& o : c.options) {
      std::string names;
      for (const std::string& n : o.names) {
        const bool long_name = n.starts_with("--");
        // fish's -s takes one letter; a longer name after one dash is -o's.
        names += fmt::format(" {} {}", long_name ? "-l" : n.size() == 2 ? "-s" : "-o",
                             fish_quoted(n.substr(long_name ? 2 : 1)));
        if (o.value != ValueKind::kNone && !o.attached_only) value_options += " " + fish_quoted(path + " " + n);
      }
      const std::string values = o.attached_only ? "" : fish_values(o.value, o.choices);
      completions += fmt::format("complete -c covkit {}{}{}{} -d {}\n", at, names,
                                 o.value != ValueKind::kNone && !o.attached_only ? " -r" : "",
                                 values.empty() ? "" : " " + values, fish_quoted(o.help));
    }
    for (const ArgumentSpec& a : c.arguments)
      if (a.kind != ValueKind::kWord) completions += fmt::format("complete -c covkit {} {}\n", at, fish_values(a.kind, a.choices));
    if (c.runs_program) {
      program_commands += " " + fish_quoted(path);
      completions += fmt::format("complete -c covkit {} -x -a '(__fish_complete_command)'\n", at);
      completions += fmt::format("complete -c covkit -n {} -x -a '(__covkit_complete_program)'\n",
                                 fish_quoted("__covkit_in_program " + fish_quoted(path)));
    }
    // Started as covkit-gcov, covkit is covkit gcov: the same lines for that
    // name (__covkit_command starts at "gcov" for it).
    if (path == "gcov") {
      std::string own = completions.substr(first_line), copy;
      for (size_t at = 0; at < own.size();) {
        const size_t end = own.find('\n', at);
        copy += "complete -c covkit-gcov" + own.substr(at + std::string_view("complete -c covkit").size(),
                                                        end - at - std::string_view("complete -c covkit").size()) + "\n";
        at = end + 1;
      }
      completions += copy;
    }
  }
  return fmt::format(
      "# fish completion for covkit: generated by `covkit completion fish` from covkit's\n"
      "# own command-line definitions (do not edit; regenerate).\n"
      "\n"
      "# Commands (\"trace record\"), options that take a value (\"trace record -o\"),\n"
      "# and the commands that run a program after their options.\n"
      "set -g __covkit_subcommands{}\n"
      "set -g __covkit_value_options{}\n"
      "set -g __covkit_program_commands{}\n"
      "{}\n"
      "# Nothing but what is said below: files only where a file is wanted.\n"
      "complete -c covkit -f\n"
      "complete -c covkit-gcov -f\n"
      "{}",
      subcommands, value_options, program_commands, kFishFunctions, completions);
}

}  // namespace covkit::cli
