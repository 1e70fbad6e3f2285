#include "cli/command_spec.h"

#include <algorithm>
#include <cctype>
#include <optional>

#include "cli/command_line.h"
#include "cli/command_table.h"

namespace covkit::cli {

namespace {

std::string first_line(std::string_view text) {
  text = text.substr(0, text.find('\n'));
  while (!text.empty() && text.back() == ' ') text.remove_suffix(1);
  return std::string(text);
}

// A summary written over several lines for `covkit --help`, as one line.
std::string one_line(std::string_view text) {
  std::string out;
  bool blank = false;
  for (char c : text) {
    if (c == '\n' || c == ' ') {
      blank = !out.empty();
      continue;
    }
    if (blank) out += ' ';
    blank = false;
    out += c;
  }
  return out;
}

// CLI11's names of value types, shown when a command gave no name of its own.
bool is_cli11_type_name(std::string_view name) {
  return name == "TEXT" || name == "INT" || name == "UINT" || name == "FLOAT" || name == "BOOLEAN" ||
         name == "ENUM" || name.empty();
}

std::string value_name_of(const CLI::Option* opt) {
  std::string name = opt->get_type_name();
  name = name.substr(0, name.find(':'));
  if (opt->get_positional() && is_cli11_type_name(name)) return opt->get_name();
  return name;
}

// The words of "{a,b,c}" (CLI::IsMember's text), or nothing.
std::vector<std::string> set_words(std::string_view text) {
  const size_t open = text.rfind('{'), close = text.rfind('}');
  if (open == std::string_view::npos || close == std::string_view::npos || close < open) return {};
  std::vector<std::string> words;
  std::string_view inner = text.substr(open + 1, close - open - 1);
  while (!inner.empty()) {
    const size_t comma = std::min(inner.find(','), inner.size());
    if (comma > 0) words.emplace_back(inner.substr(0, comma));
    inner.remove_prefix(std::min(comma + 1, inner.size()));
  }
  return words;
}

// The fixed set of words an option accepts: its CLI::IsMember check's
// description ("{a,b,c}"). (Checks are never run here: some record what they
// are given.)
std::vector<std::string> choices_of(CLI::Option* opt) {
  for (int i = 0;; ++i) {
    CLI::Validator* check = nullptr;
    try {
      check = opt->get_validator(i);
    } catch (const CLI::OptionNotFound&) {
      return {};
    }
    const std::string description = check->get_description();
    if (description.starts_with("{") && description.ends_with("}"))
      if (std::vector<std::string> words = set_words(description); !words.empty()) return words;
  }
}

OptionSpec describe_option(CLI::Option* opt) {
  OptionSpec o;
  for (const std::string& s : opt->get_snames()) o.names.push_back("-" + s);
  for (const std::string& l : opt->get_lnames()) o.names.push_back("--" + l);
  o.help = first_line(opt->get_description());
  o.repeatable = opt->get_expected_max() > 1;
  if (opt->get_expected_max() == 0) return o;  // a flag
  o.value_name = value_name_of(opt);
  o.choices = choices_of(opt);
  o.value = o.choices.empty() ? value_kind_of(o.value_name) : ValueKind::kChoice;
  return o;
}

// Runs `run` with `words` as its argv under an AppInspection: the first App
// it parses, described; nothing when it parsed none.
std::optional<CommandSpec> inspect_command(int (*run)(int, char**), std::vector<std::string> words,
                                           std::string* app_name) {
  std::optional<CommandSpec> found;
  {
    AppInspection inspection([&](CLI::App& app) {
      if (found) return;
      found = describe_app(app);
      if (app_name) *app_name = app.get_name();
    });
    std::vector<char*> argv;
    for (std::string& w : words) argv.push_back(w.data());
    argv.push_back(nullptr);
    run(int(words.size()), argv.data());
  }
  return found;
}

}  // namespace

ValueKind value_kind_of(std::string_view name) {
  // An optional value ("--json [FILE]") is completed as a value.
  if (name.size() > 2 && name.front() == '[' && name.back() == ']') name = name.substr(1, name.size() - 2);
  std::string n;
  for (char c : name) n += char(std::toupper(static_cast<unsigned char>(c)));
  auto has = [&](std::string_view part) { return n.find(part) != std::string::npos; };
  if (has("PID")) return ValueKind::kProcess;
  if (n == "DIR" || n.ends_with("_DIR") || n == "BUILD") return ValueKind::kDirectory;
  if (has("FILE") || has("PATH") || n == "OUT" || n == "IN" || has("SOURCE") || has("STREAM") || has("PROG") ||
      has("GMON") || n.ends_with("DIR|FILE") || has("DATA") || has("RECORDING") || has("TRACE"))
    return ValueKind::kFile;
  return ValueKind::kWord;
}

CommandSpec describe_app(CLI::App& app) {
  CommandSpec spec;
  spec.name = app.get_name();
  spec.summary = first_line(app.get_description());
  for (CLI::Option* opt : app.get_options()) {
    if (opt->get_positional()) {
      ArgumentSpec a{value_name_of(opt), value_kind_of(value_name_of(opt)),
                     opt->get_expected_max() > 1 || opt->get_items_expected_max() > 1, choices_of(opt)};
      if (!a.choices.empty()) a.kind = ValueKind::kChoice;
      spec.arguments.push_back(std::move(a));
    } else if (!opt->get_group().empty()) {  // hidden: a deprecated spelling, not offered
      spec.options.push_back(describe_option(opt));
    }
  }
  for (CLI::App* sub : app.get_subcommands({})) spec.subcommands.push_back(describe_app(*sub));
  spec.runs_program = app.get_prefix_command() && spec.subcommands.empty();
  return spec;
}

CommandSpec describe_getopt(std::string_view name, std::string_view summary, const option* longs,
                            std::string_view shorts, std::string_view usage,
                            std::span<const GetoptValueName> value_names) {
  CommandSpec spec;
  spec.name = std::string(name);
  spec.summary = std::string(summary);
  auto value_name = [&](int letter) -> std::string {
    for (const GetoptValueName& v : value_names)
      if (v.option == letter) return v.name;
    return "";
  };
  // The description of "--long" (or "-x,") in the usage text: what follows
  // the run of two or more blanks after it on its line.
  auto help_of = [&](const std::string& name) -> std::string {
    for (size_t at = usage.find(name); at != std::string_view::npos; at = usage.find(name, at + 1)) {
      const size_t end = at + name.size();
      if (end < usage.size() && (std::isalnum(static_cast<unsigned char>(usage[end])) || usage[end] == '-'))
        continue;
      const size_t line_start = usage.rfind('\n', at) + 1;
      std::string_view line = usage.substr(line_start, usage.find('\n', at) - line_start);
      const size_t gap = line.find("  ", end - line_start);
      if (gap == std::string_view::npos) continue;
      const size_t text = line.find_first_not_of(' ', gap);
      if (text != std::string_view::npos) return std::string(line.substr(text));
    }
    return "";
  };
  // getopt's letters: "o:" takes a value, "p::" an attached one only.
  struct Letter {
    char letter;
    int colons;
  };
  std::vector<Letter> letters;
  for (size_t i = 0; i < shorts.size(); ++i) {
    if (shorts[i] == ':' || shorts[i] == '+' || shorts[i] == '-') continue;
    const char letter = shorts[i];
    int colons = 0;
    while (i + 1 < shorts.size() && shorts[i + 1] == ':') ++colons, ++i;
    letters.push_back({letter, colons});
  }
  std::vector<bool> used(letters.size());
  auto set_value = [&](OptionSpec& o, int letter, int has_arg) {
    if (has_arg == no_argument) return;
    o.value_name = value_name(letter);
    o.value = value_kind_of(o.value_name);
    o.attached_only = has_arg == optional_argument;
  };
  for (const option* l = longs; l->name; ++l) {
    OptionSpec o;
    // A letter of the same value is the same option ("-o, --object-directory").
    for (size_t i = 0; i < letters.size(); ++i)
      if (letters[i].letter == l->val && !used[i]) {
        o.names.push_back(std::string("-") + letters[i].letter);
        used[i] = true;
      }
    o.names.push_back(std::string("--") + l->name);
    o.help = help_of(o.names.back());
    set_value(o, l->val, l->has_arg);
    spec.options.push_back(std::move(o));
  }
  // A letter may stand for two long names (gcov's -o is --object-directory
  // and --object-file): it was given to the first.
  for (size_t i = 0; i < letters.size(); ++i) {
    if (used[i]) continue;
    bool named = false;
    for (const option* l = longs; l->name; ++l) named |= l->val == letters[i].letter;
    if (named) continue;
    OptionSpec o;
    o.names.push_back(std::string("-") + letters[i].letter);
    o.help = help_of(o.names.back());
    set_value(o, letters[i].letter,
              letters[i].colons == 0 ? no_argument : letters[i].colons == 1 ? required_argument : optional_argument);
    spec.options.push_back(std::move(o));
  }
  return spec;
}

std::vector<CommandPath> command_paths(const CommandSpec& top) {
  std::vector<CommandPath> paths{{top.name, &top}};
  for (size_t i = 0; i < paths.size(); ++i) {
    const std::string parent = paths[i].path;
    for (const CommandSpec& sub : paths[i].spec->subcommands) paths.push_back({parent + " " + sub.name, &sub});
  }
  return paths;
}

// `covkit help COMMAND [SUBCOMMAND]` (main.cc: `covkit COMMAND ... --help`)
// as a command, for the completions: its "subcommands" are the commands and
// theirs, by name and summary only (no options: help takes none).
CommandSpec help_command(const std::vector<CommandSpec>& commands) {
  CommandSpec help;
  help.name = "help";
  help.summary = "a command's options and arguments (covkit help COMMAND is covkit COMMAND --help)";
  for (const CommandSpec& c : commands) {
    CommandSpec named;
    named.name = c.name;
    named.summary = c.summary;
    for (const CommandSpec& sub : c.subcommands) named.subcommands.push_back({sub.name, sub.summary, {}, {}, false, {}});
    help.subcommands.push_back(std::move(named));
  }
  return help;
}

CommandSpec describe_covkit() {
  CommandSpec top;
  top.name = "covkit";
  top.summary = "what your C and C++ code does when it runs";
  top.options.push_back({{"-h", "--help"}, ValueKind::kNone, "", {}, false, false, "this list"});
  top.options.push_back(
      {{"-V", "--version"}, ValueKind::kNone, "", {}, false, false, "covkit's version, commit and parts"});
  for (const CommandEntry& entry : command_table()) {
    std::string app_name;
    std::optional<CommandSpec> spec =
        entry.describe ? std::optional(entry.describe()) : inspect_command(entry.run, {entry.name}, &app_name);
    CommandSpec command = spec ? std::move(*spec) : CommandSpec{};
    command.name = entry.name;
    command.summary = one_line(entry.summary);
    // Subcommands dispatched to a run function of their own (trace record):
    // their App is that function's, not the placeholder in the list.
    for (CommandSpec& sub : command.subcommands) {
      std::string sub_app;
      std::optional<CommandSpec> own = inspect_command(entry.run, {entry.name, sub.name}, &sub_app);
      if (!own || sub_app == app_name) continue;
      own->name = sub.name;
      own->summary = sub.summary;
      sub = std::move(*own);
    }
    top.subcommands.push_back(std::move(command));
  }
  top.subcommands.push_back(help_command(top.subcommands));
  return top;
}

}  // namespace covkit::cli
