// cli/command_table and cli/command_spec: the names covkit answers to as
// gcov, and its command line as data (what the shell completions are made
// of), read from the commands' own definitions.
#include "cli/command_spec.h"

#include <gtest/gtest.h>

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
  ASSERT_EQ(covkit.subcommands.size(), command_table().size());
  for (const CommandEntry& e : command_table()) {
    const CommandSpec* c = sub(covkit, e.name);
    ASSERT_NE(c, nullptr) << e.name;
    EXPECT_FALSE(c->summary.empty()) << e.name;
    EXPECT_EQ(c->summary.find('\n'), std::string::npos) << e.name;
    EXPECT_NE(find_option(*c, "--help"), nullptr) << e.name;
  }
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
  EXPECT_EQ(find_option(gprof, "--format")->choices.size(), 5u);
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

}  // namespace command_spec_test
}  // namespace covkit::cli
