// cli/command_line: the hints for unknown options and commands, and the one
// guard that turns what escapes a command into a line and an exit status.
#include "cli/command_line.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <gtest/gtest.h>

#include <new>
#include <regex>
#include <sstream>
#include <stdexcept>

#include "cli/live_command.h"
#include "cli/merge_command.h"
#include "cli/report_command.h"
#include "cli/sample_command.h"
#include "cli/trace_command.h"

namespace covkit::cli {
namespace command_line_test {

// An app with a few of covkit report's options (CLI::App cannot be moved).
struct ReportLike {
  CLI::App app{"test", "covkit report"};
  std::string s;
  double d = 0;
  ReportLike() {
    app.add_option("--html", s);
    app.add_option("--fail-under-line", d);
    app.add_option("--filter", s);
  }
};

TEST(SuggestOption, PeerToolsSpellingsGetCovkits) {
  ReportLike r;
  CLI::App& app = r.app;
  EXPECT_EQ(suggest_option(app, "--html-details"),
            "that is gcovr's; here use --html DIR (every source file gets its own page)");
  EXPECT_EQ(suggest_option(app, "--capture"), "that is lcov's; here use covkit report --lcov FILE DIR");
  EXPECT_EQ(suggest_option(app, "--output-directory"), "that is genhtml's; here use --html DIR");
}

TEST(SuggestOption, NearMissesWithinTwoEdits) {
  ReportLike r;
  CLI::App& app = r.app;
  EXPECT_EQ(suggest_option(app, "--fail-under-lines"), "did you mean --fail-under-line?");
  EXPECT_EQ(suggest_option(app, "--filtre"), "did you mean --filter?");
  EXPECT_EQ(suggest_option(app, "--htm"), "did you mean --html?");
  EXPECT_EQ(suggest_option(app, "--completely-else"), "");
  EXPECT_EQ(suggest_option(app, "-x"), "");  // short options are not guessed at
}

TEST(Closest, PicksTheNearestWithinTwoEdits) {
  const std::vector<std::string> commands{"gcov", "report", "merge", "trace"};
  EXPECT_EQ(closest(commands, "reprot"), "report");
  EXPECT_EQ(closest(commands, "marge"), "merge");
  EXPECT_EQ(closest(commands, "trcae"), "trace");
  EXPECT_EQ(closest(commands, "profile"), "");
}

TEST(ParseCommandLine, HelpSucceedsAndUnknownOptionsFail) {
  ReportLike r1;
  CLI::App& app = r1.app;
  const char* help[] = {"covkit report", "--help"};
  ::testing::internal::CaptureStdout();
  EXPECT_EQ(parse_command_line(app, 2, const_cast<char**>(help)), 0);
  EXPECT_NE(::testing::internal::GetCapturedStdout().find("--fail-under-line"), std::string::npos);

  ReportLike r2;
  CLI::App& app2 = r2.app;
  const char* bad[] = {"covkit report", "--txt"};
  ::testing::internal::CaptureStderr();
  EXPECT_EQ(parse_command_line(app2, 2, const_cast<char**>(bad)), 1);
  EXPECT_EQ(::testing::internal::GetCapturedStderr(),
            "covkit report: unknown option --txt: that is gcovr's; here use -s/--print-summary (the table is "
            "printed anyway when no file is written)\n");

  ReportLike r3;
  CLI::App& app3 = r3.app;
  const char* ok[] = {"covkit report", "--html", "out"};
  EXPECT_EQ(parse_command_line(app3, 3, const_cast<char**>(ok)), std::nullopt);
}

// CLI11 checks required options before it looks at the words it did not
// know: a mistyped option must not read as a missing one.
TEST(ParseCommandLine, AMistypedOptionIsNamedNotTheRequiredOneItMissed) {
  CLI::App app{"test", "covkit merge"};
  std::string out;
  std::vector<std::string> inputs;
  app.add_option("-o,--output", out)->required();
  app.add_option("inputs", inputs)->required();
  const char* argv[] = {"covkit merge", "--outptu", "x", "a"};
  ::testing::internal::CaptureStderr();
  EXPECT_EQ(parse_command_line(app, 4, const_cast<char**>(argv)), 1);
  EXPECT_EQ(::testing::internal::GetCapturedStderr(), "covkit merge: unknown option --outptu: did you mean --output?\n");

  CLI::App app2{"test", "covkit merge"};
  app2.add_option("-o,--output", out)->required();
  const char* missing[] = {"covkit merge", "a"};
  ::testing::internal::CaptureStderr();
  EXPECT_EQ(parse_command_line(app2, 2, const_cast<char**>(missing)), 1);
  EXPECT_EQ(::testing::internal::GetCapturedStderr(),
            "covkit merge: --output is required (see covkit merge --help)\n");
}

// "--" ends the options: a lone one at the end is no unknown option, the
// missing positional is the error (issue 32 item 9: `covkit live dump --`
// said "unknown option --").
TEST(ParseCommandLine, DoubleDashEndsTheOptions) {
  auto parse = [](std::vector<const char*> args) {
    CLI::App app{"test", "covkit live dump"};
    int pid = 0;
    std::string out;
    app.add_option("PID", pid)->required();
    app.add_option("-o", out);
    args.insert(args.begin(), "covkit live dump");
    ::testing::internal::CaptureStderr();
    auto status = parse_command_line(app, int(args.size()), const_cast<char**>(args.data()));
    return std::make_tuple(status, ::testing::internal::GetCapturedStderr(), pid);
  };
  auto [status, err, pid] = parse({"-o", "d", "--", "42"});
  EXPECT_EQ(status, std::nullopt) << err;
  EXPECT_EQ(pid, 42);
  auto [refused, why, none] = parse({"-o", "d", "--"});
  EXPECT_EQ(refused, 1);
  EXPECT_EQ(why.find("unknown option"), std::string::npos) << why;
  EXPECT_NE(why.find("PID"), std::string::npos) << why;
}

// trace record and sample record take the first word they do not know for
// PROG: a mistyped option before it must be refused, not run as a program.
TEST(ParseCommandLine, APrefixCommandRefusesAnUnknownOptionBeforeItsProgram) {
  auto parse = [](std::vector<const char*> args) {
    CLI::App app{"test", "covkit trace record"};
    int depth = 0;
    app.add_option("--max-depth", depth);
    app.prefix_command();
    args.insert(args.begin(), "covkit trace record");
    ::testing::internal::CaptureStderr();
    auto status = parse_command_line(app, int(args.size()), const_cast<char**>(args.data()));
    return std::make_tuple(status, ::testing::internal::GetCapturedStderr(), app.remaining());
  };
  auto [status, err, rest] = parse({"--max-dpth", "3", "--", "ls"});
  EXPECT_EQ(status, 1);
  EXPECT_EQ(err, "covkit trace record: unknown option --max-dpth: did you mean --max-depth?\n");
  EXPECT_EQ(std::get<1>(parse({"-x", "ls"})), "covkit trace record: unknown option -x (see covkit trace record --help)\n");
  // PROG's own options, and anything after "--", are PROG's.
  auto [ok, none, prog] = parse({"--max-depth", "3", "ls", "-la"});
  EXPECT_EQ(ok, std::nullopt);
  EXPECT_EQ(prog, (std::vector<std::string>{"ls", "-la"}));
  EXPECT_EQ(std::get<0>(parse({"--", "-weird-prog"})), std::nullopt);
}

// trace, live and sample answer alike when no subcommand is named.
TEST(RefuseMissingSubcommand, BareShowsHelpAndAMistypedNameGetsTheClosest) {
  CLI::App app{"Traces calls.", "covkit trace"};
  app.add_subcommand("record", "r");
  app.add_subcommand("report", "p");
  app.add_subcommand("graph", "g");
  auto run = [&](std::vector<const char*> args) {
    args.insert(args.begin(), "covkit trace");
    ::testing::internal::CaptureStderr();
    auto status = refuse_missing_subcommand(app, int(args.size()), const_cast<char**>(args.data()));
    return std::make_pair(status, ::testing::internal::GetCapturedStderr());
  };
  auto [bare, help] = run({});
  EXPECT_EQ(bare, 1);
  EXPECT_NE(help.find("Traces calls."), std::string::npos);
  EXPECT_EQ(run({"reprot", "--json"}),
            std::make_pair(std::optional<int>(1),
                           std::string("covkit trace: 'reprot' is not a covkit trace command (record, report, graph); "
                                       "did you mean 'report'?\n")));
  EXPECT_EQ(run({"profile"}).second, "covkit trace: 'profile' is not a covkit trace command (record, report, graph)\n");
  EXPECT_EQ(run({"--help"}).first, std::nullopt);
}

// The left column of each option and positional line of a --help text
// ("  -o,--output DIR   Where..." -> "-o,--output DIR"): the lines that start
// with an option, and those under "Positionals:".
std::vector<std::string> argument_columns(const std::string& help, bool& positional_seen) {
  std::vector<std::string> columns;
  std::istringstream in(help);
  bool positionals = false;
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line[0] != ' ') {
      positionals = line == "Positionals:";
      positional_seen |= positionals;
      continue;
    }
    if (line.size() < 3 || line[1] != ' ' || line[2] == ' ') continue;  // a description's continuation
    if (line[2] != '-' && !positionals) continue;
    columns.push_back(line.substr(2, line.find("  ", 2) - 2));
  }
  return columns;
}

// Every command's and subcommand's --help: each option's argument is one
// clean name (FILE, DIR, PID, N, "PATH ..."), never CLI11's type and
// validator words ("PID INT REQUIRED", "DIR TEXT:PATH(existing)",
// "MODE:{a,b}", "Excludes: --on"), and option groups are one blank line apart.
TEST(HelpFormatter, EveryCommandsArgumentsAreOneCleanName) {
  using Run = int (*)(int, char**);
  const std::vector<std::pair<Run, std::vector<std::string>>> commands{
      {run_report_command, {"report"}},
      {run_merge_command, {"merge"}},
      {run_trace_command, {"trace"}},
      {run_trace_command, {"trace", "record"}},
      {run_trace_command, {"trace", "report"}},
      {run_trace_command, {"trace", "graph"}},
      {run_trace_command, {"trace", "timeline"}},
      {run_trace_command, {"trace", "replay"}},
      {run_trace_command, {"trace", "dump"}},
      {run_trace_command, {"trace", "attach"}},
      {run_live_command, {"live"}},
      {run_live_command, {"live", "dump"}},
      {run_live_command, {"live", "reset"}},
      {run_live_command, {"live", "report"}},
      {run_live_command, {"live", "unpack"}},
      {run_sample_command, {"sample"}},
      {run_sample_command, {"sample", "record"}},
      {run_sample_command, {"sample", "report"}},
      {run_sample_command, {"sample", "compare"}},
      {run_sample_command, {"sample", "dump"}},
      {run_sample_command, {"sample", "import-perf"}},
  };
  // "-o,--output DIR", "--tid TID ...", "-T,--trigger PATTERN@ACTION ...",
  // "--path-map OLD=NEW", "-s,--print-summary"; a positional "PATH ...".
  // An optional value in brackets: "--json [FILE]".
  const std::regex option(R"(-{1,2}[A-Za-z][\w-]*(,-{1,2}[A-Za-z][\w-]*)*( [A-Z][A-Z0-9_=@|]*| \[[A-Z][A-Z0-9_]*\])?( \.\.\.)?)");
  const std::regex positional(R"([A-Z][A-Z0-9_]*( \.\.\.)?)");
  const std::regex cli11_word(R"(\b(TEXT|INT|UINT|FLOAT|NUMBER|BOOLEAN|ENUM|CHAR|REQUIRED|Excludes|Needs|Env)\b)");
  size_t positionals = 0;
  for (const auto& [run, words] : commands) {
    std::vector<std::string> args = words;
    args.push_back("--help");
    std::vector<char*> argv;
    for (std::string& a : args) argv.push_back(a.data());
    ::testing::internal::CaptureStdout();
    const int status = run(int(argv.size()), argv.data());
    const std::string help = ::testing::internal::GetCapturedStdout();
    const std::string command = fmt::format("covkit {}", fmt::join(words, " "));
    EXPECT_EQ(status, 0) << command;
    EXPECT_NE(help.find("Usage: " + command), std::string::npos) << command << ":\n" << help;
    EXPECT_EQ(help.find("\n\n\n"), std::string::npos) << command << ": two blank lines in a row:\n" << help;
    bool positional_seen = false;
    const std::vector<std::string> columns = argument_columns(help, positional_seen);
    EXPECT_FALSE(columns.empty()) << command;
    for (const std::string& c : columns) {
      const bool is_option = c[0] == '-';
      EXPECT_TRUE(std::regex_match(c, is_option ? option : positional)) << command << ": '" << c << "'";
      EXPECT_FALSE(std::regex_search(c, cli11_word)) << command << ": '" << c << "'";
      positionals += !is_option;
    }
  }
  EXPECT_GE(positionals, 10u);  // the walk saw the positionals too
}

TEST(RunGuarded, EscapesBecomeOneLineAndStatusOne) {
  ::testing::internal::CaptureStderr();
  EXPECT_EQ(run_guarded("covkit x", [] () -> int { throw std::bad_alloc(); }), 1);
  EXPECT_EQ(run_guarded("covkit x", [] () -> int { throw std::runtime_error("boom"); }), 1);
  EXPECT_EQ(run_guarded("covkit x", [] { return 3; }), 3);
  EXPECT_EQ(::testing::internal::GetCapturedStderr(),
            "covkit x: out of memory (the input is larger than this machine can hold)\n"
            "covkit x: internal error: boom\n");
}

TEST(Fail, NamesTheFileAndEscapesIt) {
  ::testing::internal::CaptureStderr();
  EXPECT_EQ(fail("covkit merge", "a\nb.info", "line 2: bad"), 1);
  EXPECT_EQ(fail("covkit merge", "", Error(12, "what"), 4), 4);
  EXPECT_EQ(::testing::internal::GetCapturedStderr(),
            "covkit merge: a\\nb.info: line 2: bad\ncovkit merge: corrupt at byte 12: what\n");
}

// A gate or threshold that takes "nan" silently never fails (no comparison
// with NaN is true): number_in refuses it, infinities, blanks and junk, in
// one readable line.
TEST(NumberIn, PlainFiniteNumbersWithinTheRangeOnly) {
  auto parse = [](const char* text, bool above = false) {
    CLI::App app{"covkit x"};
    double v = -1;
    app.add_option("--n", v)->check(number_in(0, 100, above));
    const char* argv[] = {"covkit x", "--n", text};
    ::testing::internal::CaptureStderr();
    auto status = parse_command_line(app, 3, const_cast<char**>(argv));
    return std::make_pair(status, ::testing::internal::GetCapturedStderr());
  };
  for (const char* ok : {"0", "80", "2.5", "100", "1e1"}) EXPECT_EQ(parse(ok).first, std::nullopt) << ok;
  for (const char* bad : {"nan", "NaN", "-nan", "inf", "-inf", "1e400", "80 ", " 80", "0x10", "", "80x"}) {
    auto [status, err] = parse(bad);
    EXPECT_EQ(status, 1) << bad;
    EXPECT_EQ(err, fmt::format("covkit x: --n: '{}' is not a number from 0 to 100 (see covkit x --help)\n", bad))
        << bad;
  }
  EXPECT_EQ(parse("101").second, "covkit x: --n: 101 is not from 0 to 100 (see covkit x --help)\n");
  EXPECT_EQ(parse("-5").first, 1);
  EXPECT_EQ(parse("0", true).second, "covkit x: --n: 0 is not above 0 to 100 (see covkit x --help)\n");
  EXPECT_EQ(parse("0.5", true).first, std::nullopt);
}

// Whole-number options (-j, --depth, --strip...) answer as number_in does,
// not with CLI11's "Could not convert: --jobs = -1".
TEST(WholeNumberIn, DigitsWithinTheRangeOnly) {
  auto parse = [](const char* text) {
    CLI::App app{"covkit x"};
    unsigned v = 0;
    app.add_option("-j,--jobs", v)->check(whole_number_in(1, 1024));
    const char* argv[] = {"covkit x", "-j", text};
    ::testing::internal::CaptureStderr();
    auto status = parse_command_line(app, 3, const_cast<char**>(argv));
    return std::make_pair(status, ::testing::internal::GetCapturedStderr());
  };
  for (const char* ok : {"1", "2", "1024"}) EXPECT_EQ(parse(ok).first, std::nullopt) << ok;
  for (const char* bad : {"abc", "2.5", "", " 2", "2 ", "+2", "1e2", "0x10", "99999999999999999999"})
    EXPECT_EQ(parse(bad).second,
              fmt::format("covkit x: --jobs: '{}' is not a whole number from 1 to 1024 (see covkit x --help)\n", bad))
        << bad;
  EXPECT_EQ(parse("-1").second, "covkit x: --jobs: -1 is not from 1 to 1024 (see covkit x --help)\n");
  EXPECT_EQ(parse("0").second, "covkit x: --jobs: 0 is not from 1 to 1024 (see covkit x --help)\n");
}

}  // namespace command_line_test
}  // namespace covkit::cli
