#include "cli/command_line.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <memory>
#include <new>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "util/printable.h"

namespace covkit::cli {

namespace {

std::atomic<bool> streams_built{false};

// Options of gcovr, lcov, genhtml and gcov that covkit spells otherwise (or
// needs no longer), with what to use instead. Users arrive with these in
// their fingers and CI scripts.
struct Translation {
  std::string_view option;
  std::string_view tool;    // whose option it is
  std::string_view advice;  // what to use in covkit
};
constexpr std::array kPeerOptions{
    Translation{"--html-details", "gcovr", "--html DIR (every source file gets its own page)"},
    Translation{"--html-nested", "gcovr", "--html DIR (with a page per directory)"},
    Translation{"--html-self-contained", "gcovr", "--html DIR"},
    Translation{"--html-title", "gcovr", "--title TITLE"},
    Translation{"--txt", "gcovr", "-s/--print-summary (the table is printed anyway when no file is written)"},
    Translation{"--xml-pretty", "gcovr", "--cobertura FILE"},
    Translation{"--json-summary", "gcovr", "--json FILE"},
    Translation{"--json-add-tracefile", "gcovr", "-a/--add-tracefile FILE"},
    Translation{"--cobertura-add-tracefile", "gcovr", "-a/--add-tracefile FILE (lcov or covkit JSON)"},
    Translation{"--exclude-directories", "gcovr", "-e/--exclude REGEX"},
    Translation{"--gcov-executable", "gcovr", "nothing (covkit reads .gcno/.gcda files itself)"},
    Translation{"--gcov-ignore-parse-errors", "gcovr", "nothing (damaged objects are reported and skipped)"},
    Translation{"--branches", "gcovr", "nothing (branches are always counted)"},
    Translation{"--capture", "lcov", "covkit report --lcov FILE DIR"},
    Translation{"--directory", "lcov", "the directory as a PATH argument"},
    Translation{"--output-file", "lcov", "-o FILE.info (or --lcov FILE)"},
    Translation{"--extract", "lcov", "-f/--filter REGEX"},
    Translation{"--remove", "lcov", "-e/--exclude REGEX"},
    Translation{"--output-directory", "genhtml", "--html DIR"},
};

size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diagonal = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = up;
    }
  }
  return row[b.size()];
}

// "--name" of every long option the app knows.
std::vector<std::string> long_options(const CLI::App& app) {
  std::vector<std::string> out;
  for (const CLI::Option* o : app.get_options())
    for (const std::string& n : o->get_lnames()) out.push_back("--" + n);
  return out;
}

// The unknown options in CLI11's leftovers ("--txt", "--fail-under=80").
// "--" ends the options (what follows is never one): a lone "--" at the end
// is no unknown option, and the error is then CLI11's (a missing PID...).
std::vector<std::string> unknown_options(const std::vector<std::string>& extras) {
  std::vector<std::string> out;
  for (const std::string& e : extras) {
    if (e == "--") break;
    if (e.starts_with("-")) out.push_back(e.substr(0, e.find('=')));
  }
  return out;
}

}  // namespace

std::string closest(const std::vector<std::string>& candidates, std::string_view word) {
  std::string best;
  size_t best_distance = 3;  // at most two edits away
  for (const std::string& known : candidates) {
    size_t d = edit_distance(word, known);
    if (d < best_distance) {
      best_distance = d;
      best = known;
    }
  }
  return best;
}

std::string suggest_option(const CLI::App& app, std::string_view unknown) {
  // lcov's letter for a test name is covkit's -t of trace replay (uftrace's
  // --time-filter): one letter, one meaning (docs/command-line.md).
  if ((unknown == "-t" || unknown.starts_with("-t")) && app.get_option_no_throw("--test-name"))
    return "-t is trace replay's --time-filter; here use --test-name NAME";
  for (const Translation& t : kPeerOptions)
    if (t.option == unknown) return fmt::format("that is {}'s; here use {}", t.tool, t.advice);
  if (!unknown.starts_with("--")) return "";
  std::string best = closest(long_options(app), unknown);
  return best.empty() ? best : fmt::format("did you mean {}?", best);
}

// A repeatable option takes one value per use (-F a -F b): CLI11 otherwise
// lets one use swallow the words after it, and reads a value written
// "[x,y]" as a list of two, which turned the regex -F '[fm]ain' into 'fm]ain'.
void one_value_per_use(CLI::App& app) {
  for (CLI::Option* opt : app.get_options())
    if (opt->nonpositional() && opt->get_items_expected_max() > 1) opt->allow_extra_args(false);
  for (CLI::App* sub : app.get_subcommands({})) one_value_per_use(*sub);
}

namespace {

// "unknown option --x: did you mean --y?; unknown option -z"; `hinted` says
// whether any of them got a hint (then "see --help" is not added).
std::string describe_unknown(const CLI::App& app, const std::vector<std::string>& unknown, bool& hinted) {
  std::string what;
  for (const std::string& u : unknown) {
    std::string hint = suggest_option(app, u);
    hinted |= !hint.empty();
    what += fmt::format("{}unknown option {}{}", what.empty() ? "" : "; ", u, hint.empty() ? "" : ": " + hint);
  }
  return what;
}

int usage_error(const CLI::App& app, std::string_view what, bool hinted) {
  const std::string name = app.get_name();
  std::fprintf(stderr, "%s: %s%s\n", name.c_str(), util::printable(what).c_str(),
               hinted ? "" : fmt::format(" (see {} --help)", name).c_str());
  return 1;
}

// A prefix command (trace record, sample record) takes the first word it
// does not know for PROG, so a mistyped option before PROG would be run as
// a program ("--max-dpth: command not found", status 127). PROG's own
// options come after PROG or after "--"; a PROG whose name starts with '-'
// can still be given after "--".
std::optional<int> refuse_option_as_program(const CLI::App& app) {
  if (!app.get_prefix_command()) return std::nullopt;
  const std::vector<std::string> rest = app.remaining();
  if (rest.empty() || rest[0].size() < 2 || rest[0][0] != '-' || rest[0] == "--") return std::nullopt;
  bool hinted = false;
  const std::string what = describe_unknown(app, unknown_options({rest[0]}), hinted);
  return usage_error(app, what, hinted);
}

// The argument's name: the type name without the descriptions of the
// validators CLI11 appends after ':' ("DIR:PATH(existing)" -> "DIR").
std::string argument_name(const CLI::Option* opt) {
  std::string name = opt->get_type_name();
  return name.substr(0, name.find(':'));
}

// Every app gets the HelpFormatter, with the column width it was given.
void use_help_formatter(CLI::App& app) {
  std::shared_ptr<CLI::FormatterBase> current = app.get_formatter();
  if (!std::dynamic_pointer_cast<HelpFormatter>(current)) {
    auto help = std::make_shared<HelpFormatter>();
    help->column_width(current->get_column_width());
    app.formatter(help);
  }
  for (CLI::App* sub : app.get_subcommands({})) use_help_formatter(*sub);
}

}  // namespace

std::string HelpFormatter::make_help(const CLI::App* app, std::string name, CLI::AppFormatMode mode) const {
  if (mode == CLI::AppFormatMode::Sub) return make_expanded(app);
  // One layout for every command (docs/command-line.md): the usage first,
  // then what the command does, its options, the footer (exit status,
  // examples).
  std::string usage = make_usage(app, name);
  while (usage.ends_with("\n\n")) usage.pop_back();
  // Descriptions end with their own newline or not: one, then each group's
  // blank line.
  std::string description = make_description(app);
  while (description.ends_with("\n")) description.pop_back();
  if (!description.empty()) description += '\n';
  std::string out = usage + "\n" + description + make_positionals(app);
  // Each group starts with its blank line (make_group); CLI::Formatter's
  // make_groups adds another after every group but the last.
  for (const std::string& group : app->get_groups()) {
    std::vector<const CLI::Option*> opts = app->get_options(
        [&](const CLI::Option* opt) { return opt->get_group() == group && opt->nonpositional(); });
    if (!group.empty() && !opts.empty()) out += make_group(group, false, opts);
  }
  out += make_subcommands(app, mode);
  out += '\n';
  out += make_footer(app);
  return out;
}

std::string HelpFormatter::make_usage(const CLI::App* app, std::string name) const {
  std::string usage = CLI::Formatter::make_usage(app, name);
  std::string required;
  for (const CLI::Option* opt :
       app->get_options([](const CLI::Option* o) { return o->nonpositional() && o->get_required(); })) {
    required += ' ';
    required += opt->get_snames().empty() ? "--" + opt->get_lnames().front() : "-" + opt->get_snames().front();
    if (opt->get_type_size() != 0 && !argument_name(opt).empty()) required += ' ' + argument_name(opt);
  }
  const std::string head = get_label("Usage") + ":" + (name.empty() ? "" : " ") + name;
  if (!required.empty() && usage.starts_with(head)) usage.insert(head.size(), required);
  return usage;
}

std::string HelpFormatter::make_option_opts(const CLI::Option* opt) const {
  if (!opt->get_option_text().empty()) return " " + opt->get_option_text();
  if (opt->get_type_size() == 0) return "";  // a flag
  std::string out;
  if (!opt->get_positional() && !argument_name(opt).empty()) out += ' ' + argument_name(opt);
  if (opt->get_expected_max() == CLI::detail::expected_max_vector_size) out += " ...";
  return out;
}

namespace {

thread_local std::function<void(CLI::App&)>* g_inspection = nullptr;

// The App goes to the inspection instead of being parsed (AppInspection).
bool inspected(CLI::App& app) {
  if (!g_inspection) return false;
  use_help_formatter(app);
  (*g_inspection)(app);
  return true;
}

}  // namespace

AppInspection::AppInspection(std::function<void(CLI::App&)> inspect)
    : inspect_(std::move(inspect)), outer_(g_inspection) {
  g_inspection = &inspect_;
}

AppInspection::~AppInspection() { g_inspection = outer_; }

namespace {

// An option with an optional value ("--json [FILE]") given "" (an unset
// $OUT in a script: `--json "$OUT"`): CLI11 takes "" for no value, which
// would write to standard output instead; a usage error, as "" is for
// every option that takes a path.
std::optional<int> refuse_empty_optional_value(const CLI::App& app, int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    std::string_view arg = argv[i];
    std::string name;
    if (arg.starts_with("--") && arg.ends_with("=") && arg.find('=') == arg.size() - 1) {
      name = std::string(arg.substr(0, arg.size() - 1));
    } else if (arg.empty() && i > 1 && std::string_view(argv[i - 1]).starts_with("--") &&
               std::string_view(argv[i - 1]).find('=') == std::string_view::npos) {
      name = argv[i - 1];
    } else if (arg == "--") {
      return std::nullopt;
    } else {
      continue;
    }
    const CLI::Option* opt = app.get_option_no_throw(name);
    if (opt && opt->get_expected_min() == 0 && opt->get_expected_max() >= 1)
      return usage_error(app, fmt::format("{}: an empty path", opt->get_name()), false);
  }
  return std::nullopt;
}

}  // namespace

void use_standard_streams() {
  static const std::ios_base::Init streams;
  streams_built.store(true, std::memory_order_relaxed);
}

bool standard_streams_built() { return streams_built.load(std::memory_order_relaxed); }

std::optional<int> parse_command_line(CLI::App& app, int argc, char** argv) {
  use_standard_streams();  // CLI11 prints to std::cout and std::cerr (cli/cli11.h)
  if (inspected(app)) return 0;
  if (auto refused = refuse_empty_optional_value(app, argc, argv)) return refused;
  try {
    use_help_formatter(app);
    one_value_per_use(app);
    app.parse(argc, argv);
    return refuse_option_as_program(app);
  } catch (const CLI::ParseError& e) {
    // --help and --version print and succeed; every usage error exits 1 as
    // the manuals say, not with CLI11's own codes (104-114).
    if (e.get_exit_code() == 0) return app.exit(e);
    // Unknown options get covkit's words and a hint; stray arguments keep
    // CLI11's. CLI11 checks required options and values before it looks at
    // what it did not know, so a mistyped option ("--outptu x") would read
    // as "--output is required": the unknown option is the cause, said first.
    // (A prefix command's leftovers are its program's words, not ours.)
    const std::vector<std::string> unknown =
        app.get_prefix_command() ? std::vector<std::string>{} : unknown_options(app.remaining());
    if (unknown.empty()) return usage_error(app, e.what(), false);
    bool hinted = false;
    const std::string what = describe_unknown(app, unknown, hinted);
    return usage_error(app, what, hinted);
  }
}

std::optional<int> refuse_missing_subcommand(CLI::App& app, int argc, char** argv) {
  if (inspected(app)) return 0;
  if (argc < 2) {
    std::fputs(app.help().c_str(), stderr);
    return 1;
  }
  if (argv[1][0] == '-') return std::nullopt;
  std::vector<std::string> names;
  for (const CLI::App* sub : app.get_subcommands({})) names.push_back(sub->get_name());
  const std::string hint = closest(names, argv[1]);
  return fail(app.get_name(), "",
              fmt::format("'{}' is not a {} command ({}){}", argv[1], app.get_name(), fmt::join(names, ", "),
                          hint.empty() ? "" : fmt::format("; did you mean '{}'?", hint)));
}

namespace {

// A decimal number as std::from_chars reads one (no blank, no '+', no hex;
// out of range is no number), through strtod: from_chars of a double is
// the one piece of libstdc++ that needs libm (fesetround), which covkit
// is linked without (util/rounding.h says why). covkit never sets a
// locale, so strtod's decimal point is '.'.
std::optional<double> decimal_number(const std::string& text) {
  if (text.empty() || text.find_first_of(" \t\n\v\f\r+xX") != std::string::npos) return std::nullopt;
  errno = 0;
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  if (errno == ERANGE || end != text.c_str() + text.size()) return std::nullopt;
  return v;
}

}  // namespace

CLI::Validator number_in(double lo, double hi, bool above_lo) {
  auto check = [=](std::string& text) -> std::string {
    const std::optional<double> number = decimal_number(text);
    const double v = number.value_or(0);
    const std::string range = fmt::format("{} {} to {}", above_lo ? "above" : "from", lo, hi);
    if (!number || !std::isfinite(v))
      return fmt::format("'{}' is not a number {}", util::printable(text), range);
    if (v < lo || (above_lo && v == lo) || v > hi) return fmt::format("{} is not {}", text, range);
    return "";
  };
  return CLI::Validator(check, "");
}

int checked_stdout(std::string_view command, int status) {
  // std::cout exists only once built (cli/cli11.h); unbuilt, it wrote nothing.
  const bool cout_used = standard_streams_built();
  if (cout_used) std::cout.flush();
  const char* why = nullptr;
  if (std::fflush(stdout) != 0) {
    why = std::strerror(errno);
  } else if (std::ferror(stdout) || (cout_used && !std::cout.good())) {
    // An earlier write failed and its data were dropped; errno still says
    // why unless a later call changed it.
    const int e = errno;
    const bool write_error = e == ENOSPC || e == EDQUOT || e == EFBIG || e == EIO || e == EBADF || e == EPIPE;
    why = write_error ? std::strerror(e) : "write failed";
  }
  if (!why) return status;
  fail(command, "<stdout>", why);
  return status == 0 ? 1 : status;
}

CLI::Validator whole_number_in(long long lo, long long hi) {
  auto check = [=](std::string& text) -> std::string {
    long long v = 0;
    const char* end = text.data() + text.size();
    auto [ptr, ec] = std::from_chars(text.data(), end, v);
    const bool digits = !text.empty() && (std::isdigit(static_cast<unsigned char>(text[0])) || text[0] == '-');
    if (!digits || ec != std::errc() || ptr != end)
      return fmt::format("'{}' is not a whole number from {} to {}", util::printable(text), lo, hi);
    if (v < lo || v > hi) return fmt::format("{} is not from {} to {}", text, lo, hi);
    return "";
  };
  return CLI::Validator(check, "");
}

CLI::Validator non_empty_path() {
  return CLI::Validator([](std::string& text) -> std::string { return text.empty() ? "an empty path" : ""; }, "");
}

int fail(std::string_view command, std::string_view file, std::string_view message, int status) {
  if (file.empty())
    std::fprintf(stderr, "%s: %s\n", std::string(command).c_str(), util::printable(message).c_str());
  else
    std::fprintf(stderr, "%s: %s: %s\n", std::string(command).c_str(), util::printable(file).c_str(),
                 util::printable(message).c_str());
  return status;
}

int fail(std::string_view command, std::string_view file, const Error& error, int status) {
  return fail(command, file, error.describe(), status);
}

int run_guarded(std::string_view command, const std::function<int()>& body) {
  try {
    return body();
  } catch (const std::bad_alloc&) {
    return fail(command, "", "out of memory (the input is larger than this machine can hold)");
  } catch (const std::exception& e) {
    return fail(command, "", fmt::format("internal error: {}", e.what()));
  }
}

}  // namespace covkit::cli
