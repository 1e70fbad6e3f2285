// cli/command_table and cli/command_spec: the names covkit answers to as
// gcov, and its command line as data (what the shell completions are made
// of), read from the commands' own definitions.
#include "cli/command_spec.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <map>
#include <memory>
#include <set>
#include <string>

#include "cli/command_table.h"

namespace covkit::cli {
namespace command_spec_test {

TEST(StartedAsGcov, GcovNames) {
  for (const char* name : {"gcov", "/usr/bin/gcov", "covkit-gcov", "/opt/covkit/bin/covkit-gcov", "gcov-12",
                           "gcov-12.2", "x86_64-linux-gnu-gcov", "x86_64-linux-gnu-gcov-12", "./gcov"})
    EXPECT_TRUE(started_as_gcov(name)) << name;
  for (const char* name : {"covkit", "/usr/bin/covkit", "gcovr", "gcov-tool", "gcov-dump", "lcov", "gcov-", "mygcov",
                           "gcov12"})
    EXPECT_FALSE(started_as_gcov(name)) << name;
}

const CommandSpec* sub(const CommandSpec& c, const std::string& name) {
  for (const CommandSpec& s : c.subcommands)
    if (s.name == name) return &s;
  return nullptr;
}

const OptionSpec* find_option(const CommandSpec& c, const std::string& name) {
  for (const OptionSpec& o : c.options)
    for (const std::string& n : o.names)
      if (n == name) return &o;
  return nullptr;
}

TEST(DescribeCovkit, EveryCommandWithItsOwnOptions) {
  const CommandSpec covkit = describe_covkit();
  ASSERT_EQ(covkit.subcommands.size(), command_table().size() + 1);  // and help
  for (const CommandEntry& e : command_table()) {
    const CommandSpec* c = sub(covkit, e.name);
    ASSERT_NE(c, nullptr) << e.name;
    EXPECT_FALSE(c->summary.empty()) << e.name;
    EXPECT_EQ(c->summary.find('\n'), std::string::npos) << e.name;
    EXPECT_NE(find_option(*c, "--help"), nullptr) << e.name;
  }
}

// `covkit help COMMAND [SUBCOMMAND]` completes as the commands do: every
// command, and each one's subcommands, by name; no options.
TEST(DescribeCovkit, HelpNamesEveryCommandAndSubcommand) {
  const CommandSpec covkit = describe_covkit();
  const CommandSpec* help = sub(covkit, "help");
  ASSERT_NE(help, nullptr);
  EXPECT_TRUE(help->options.empty());
  ASSERT_EQ(help->subcommands.size(), command_table().size());
  for (const CommandEntry& e : command_table()) {
    const CommandSpec* named = sub(*help, e.name);
    ASSERT_NE(named, nullptr) << e.name;
    const CommandSpec& command = *sub(covkit, e.name);
    EXPECT_EQ(named->summary, command.summary) << e.name;
    ASSERT_EQ(named->subcommands.size(), command.subcommands.size()) << e.name;
    for (size_t i = 0; i < command.subcommands.size(); ++i) {
      EXPECT_EQ(named->subcommands[i].name, command.subcommands[i].name) << e.name;
      EXPECT_TRUE(named->subcommands[i].options.empty()) << e.name;
    }
  }
  EXPECT_NE(sub(*sub(*help, "trace"), "record"), nullptr);
}

TEST(DescribeCovkit, ValuesAreKnownByTheirNames) {
  const CommandSpec covkit = describe_covkit();
  const CommandSpec& report = *sub(covkit, "report");
  EXPECT_EQ(find_option(report, "--lcov")->value, ValueKind::kFile);
  EXPECT_EQ(find_option(report, "--html")->value, ValueKind::kDirectory);
  EXPECT_EQ(find_option(report, "--print-summary")->value, ValueKind::kNone);
  const OptionSpec* color = find_option(report, "--color");
  ASSERT_NE(color, nullptr);
  EXPECT_EQ(color->value, ValueKind::kChoice);
  EXPECT_EQ(color->choices, (std::vector<std::string>{"auto", "always", "never"}));
  EXPECT_TRUE(find_option(report, "--filter")->repeatable);
  ASSERT_FALSE(report.arguments.empty());
  EXPECT_EQ(report.arguments[0].kind, ValueKind::kFile);
  EXPECT_TRUE(report.arguments[0].repeatable);
}

TEST(DescribeCovkit, SubcommandsAreTheirOwnApps) {
  const CommandSpec covkit = describe_covkit();
  const CommandSpec& trace = *sub(covkit, "trace");
  const CommandSpec* record = sub(trace, "record");
  ASSERT_NE(record, nullptr);
  EXPECT_TRUE(record->runs_program);
  EXPECT_NE(find_option(*record, "--max-depth"), nullptr);
  EXPECT_FALSE(record->summary.empty());
  const CommandSpec& dump = *sub(*sub(covkit, "live"), "dump");
  ASSERT_FALSE(dump.arguments.empty());
  EXPECT_EQ(dump.arguments[0].kind, ValueKind::kProcess);
  EXPECT_EQ(find_option(*sub(*sub(covkit, "sample"), "record"), "--pid")->value, ValueKind::kProcess);
}

TEST(DescribeCovkit, GetoptCommandsFromTheirTables) {
  const CommandSpec covkit = describe_covkit();
  const CommandSpec& gcov = *sub(covkit, "gcov");
  const OptionSpec* o = find_option(gcov, "-o");
  ASSERT_NE(o, nullptr);
  EXPECT_EQ(o->names, (std::vector<std::string>{"-o", "--object-directory"}));
  EXPECT_EQ(o->value, ValueKind::kFile);
  EXPECT_EQ(find_option(gcov, "--object-file")->value, ValueKind::kFile);
  EXPECT_EQ(find_option(gcov, "-b")->value, ValueKind::kNone);
  EXPECT_NE(find_option(gcov, "-i"), nullptr);  // a letter without a long name
  EXPECT_EQ(find_option(gcov, "-a")->help, "Show information for every basic block");
  const CommandSpec& gprof = *sub(covkit, "gprof");
  EXPECT_TRUE(find_option(gprof, "-p")->attached_only);
  EXPECT_EQ(find_option(gprof, "--format")->choices.size(), 6u);  // text dot svg png callgrind json
  EXPECT_EQ(find_option(gprof, "-w")->value_name, "WIDTH");
}

TEST(DescribeGetopt, LettersWithAndWithoutLongNames) {
  static const option kLongs[] = {{"alpha", no_argument, nullptr, 'a'},
                                  {"out", required_argument, nullptr, 'o'},
                                  {"only-long", required_argument, nullptr, 0x100},
                                  {nullptr, 0, nullptr, 0}};
  static constexpr GetoptValueName kNames[] = {{'o', "FILE"}, {0x100, "DIR"}, {'z', "PID"}};
  const CommandSpec c = describe_getopt("x", "", kLongs, ":ao:p::z:", "  -a, --alpha     The first\n", kNames);
  ASSERT_EQ(c.options.size(), 5u);
  EXPECT_EQ(c.options[0].names, (std::vector<std::string>{"-a", "--alpha"}));
  EXPECT_EQ(c.options[0].help, "The first");
  EXPECT_EQ(c.options[2].value, ValueKind::kDirectory);
  EXPECT_EQ(c.options[3].names, (std::vector<std::string>{"-p"}));
  EXPECT_TRUE(c.options[3].attached_only);
  EXPECT_EQ(c.options[4].value, ValueKind::kProcess);
}


// Short options (docs/command-line.md, issue 35 item 5): outside the drop-ins
// gcov and gprof, a letter means one thing in every command. Each command's
// options with a letter must share a long name with every other use of that
// letter (-D is --depth in trace replay and --max-depth/--depth in trace
// record), and a letter has a long name to say what it means.
bool is_drop_in(const std::string& path) {
  return path == "covkit gcov" || path.starts_with("covkit gcov ") || path == "covkit gprof" ||
         path.starts_with("covkit gprof ");
}

TEST(ShortOptions, ALetterMeansOneThingInEveryCommand) {
  const CommandSpec covkit = describe_covkit();
  struct Use {
    std::set<std::string> longs;
    std::string command;
  };
  std::map<char, std::vector<Use>> uses;
  size_t commands = 0;
  for (const CommandPath& c : command_paths(covkit)) {
    if (is_drop_in(c.path)) continue;
    ++commands;
    for (const OptionSpec& o : c.spec->options) {
      Use use{{}, c.path};
      std::vector<char> letters;
      for (const std::string& n : o.names) {
        if (n.size() == 2 && n[0] == '-') letters.push_back(n[1]);
        else if (n.starts_with("--")) use.longs.insert(n);
      }
      for (char letter : letters) {
        EXPECT_FALSE(use.longs.empty()) << c.path << ": -" << letter << " has no long name to say what it means";
        uses[letter].push_back(use);
      }
    }
  }
  EXPECT_GT(commands, 15u);  // every command and subcommand was walked
  EXPECT_GT(uses.size(), 5u);
  for (const auto& [letter, seen] : uses) {
    std::set<std::string> common = seen.front().longs;
    for (const Use& u : seen) {
      std::set<std::string> both;
      for (const std::string& l : u.longs)
        if (common.count(l)) both.insert(l);
      common = both;
    }
    std::string where;
    for (const Use& u : seen) {
      where += "\n  " + u.command + ":";
      for (const std::string& l : u.longs) where += " " + l;
    }
    EXPECT_FALSE(common.empty()) << "-" << letter << " has two meanings:" << where;
  }
}

TEST(ShortOptions, TheOutputLettersMeanTheSameEverywhere) {
  const CommandSpec covkit = describe_covkit();
  for (const CommandPath& c : command_paths(covkit)) {
    if (is_drop_in(c.path)) continue;
    if (find_option(*c.spec, "-o")) {
      EXPECT_NE(find_option(*c.spec, "--output"), nullptr) << c.path;
    }
    if (const OptionSpec* j = find_option(*c.spec, "--json")) {
      EXPECT_EQ(j->value_name, "[FILE]") << c.path << ": --json [FILE] everywhere";
    }
  }
  // The commands that write have -o.
  for (const char* path : {"covkit report", "covkit merge", "covkit trace report", "covkit trace graph",
                           "covkit trace timeline", "covkit trace replay", "covkit trace dump", "covkit sample report",
                           "covkit sample compare", "covkit sample dump", "covkit live report"}) {
    bool found = false;
    for (const CommandPath& c : command_paths(covkit))
      if (c.path == path) {
        found = true;
        EXPECT_NE(find_option(*c.spec, "-o"), nullptr) << path;
      }
    EXPECT_TRUE(found) << path;
  }
}

// gcov is a drop-in: every letter GCC's gcov lists (its --help, the oracle)
// is covkit gcov's with the same long name.
TEST(ShortOptions, GcovKeepsGccsLetters) {
  std::unique_ptr<FILE, int (*)(FILE*)> help(popen("gcov-12 --help 2>/dev/null", "r"), pclose);
  if (!help) GTEST_SKIP() << "gcov-12 missing";
  std::string text;
  char buf[4096];
  for (size_t n; (n = std::fread(buf, 1, sizeof buf, help.get())) > 0;) text.append(buf, n);
  text = text.substr(0, text.find("Obsolete options:"));
  if (text.find("--all-blocks") == std::string::npos) GTEST_SKIP() << "gcov-12 missing";
  const CommandSpec covkit = describe_covkit();
  const CommandSpec& gcov = *sub(covkit, "gcov");
  size_t checked = 0;
  for (size_t at = text.find("\n  -"); at != std::string::npos; at = text.find("\n  -", at + 1)) {
    // "  -a, --all-blocks   ..."
    const std::string letter = text.substr(at + 3, 2);
    const size_t long_at = text.find("--", at + 5);
    const size_t long_end = text.find_first_of(" \t\n", long_at);
    const std::string long_name = text.substr(long_at, long_end - long_at);
    const OptionSpec* o = find_option(gcov, letter);
    ASSERT_NE(o, nullptr) << letter;
    EXPECT_NE(std::find(o->names.begin(), o->names.end(), long_name), o->names.end()) << letter << " " << long_name;
    ++checked;
  }
  EXPECT_GE(checked, 20u);
}

// gprof is a drop-in: binutils' letters, as its manual pairs them.
TEST(ShortOptions, GprofKeepsBinutilsLetters) {
  const CommandSpec covkit = describe_covkit();
  const CommandSpec& gprof = *sub(covkit, "gprof");
  const std::pair<const char*, const char*> kGprof[] = {
      {"-b", "--brief"}, {"-p", "--flat-profile"}, {"-P", "--no-flat-profile"}, {"-q", "--graph"},
      {"-Q", "--no-graph"}, {"-n", "--time"}, {"-N", "--no-time"}, {"-s", "--sum"}, {"-T", "--traditional"},
      {"-w", "--width"}, {"-z", "--display-unused-functions"}};
  for (const auto& [letter, long_name] : kGprof) {
    const OptionSpec* o = find_option(gprof, letter);
    ASSERT_NE(o, nullptr) << letter;
    EXPECT_NE(std::find(o->names.begin(), o->names.end(), std::string(long_name)), o->names.end()) << letter;
  }
  for (const char* letter : {"-e", "-E", "-f", "-F", "-k"}) EXPECT_NE(find_option(gprof, letter), nullptr) << letter;
}

}  // namespace command_spec_test
}  // namespace covkit::cli
