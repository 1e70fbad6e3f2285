// covkit trace record's filters and patch lists (trace/record_filters,
// trace/patch_sites): how patterns name functions, the list files' text, and
// the functions of a real ELF file (this test binary) found by name.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "format/elf_symbols.h"
#include "trace/patch_sites.h"
#include "trace/record_filters.h"

// A function of this binary with a name no library has.
extern "C" __attribute__((noinline, used)) int covkit_filter_probe_fn(int x) { return x * 7 + 1; }

namespace trace_record_filters_test {

using covkit::trace::FilterAction;
using covkit::trace::FilterPlan;
using covkit::trace::FilterRange;
using covkit::trace::parse_filter_rule;
using covkit::trace::parse_trigger_rule;
using covkit::trace::rule_matches;

covkit::trace::FilterRule rule(const std::string& p, FilterAction a = FilterAction::only) {
  auto r = parse_filter_rule(a, p);
  EXPECT_TRUE(r) << p;
  return *r;
}

TEST(RecordFilters, WholeNamesMatchTheSymbolTheDemangledNameOrItWithoutParameters) {
  const std::string mangled = "_ZN2ns5parseEi";  // ns::parse(int)
  EXPECT_TRUE(rule_matches(rule("_ZN2ns5parseEi"), mangled));
  EXPECT_TRUE(rule_matches(rule("ns::parse(int)"), mangled));  // has '(': a whole name still matches
  EXPECT_TRUE(rule_matches(rule("ns::parse"), mangled));
  EXPECT_FALSE(rule_matches(rule("parse"), mangled));  // not a regex: no partial match
  EXPECT_FALSE(rule_matches(rule("ns::pars"), mangled));
  EXPECT_TRUE(rule_matches(rule("main"), "main"));
  EXPECT_FALSE(rule_matches(rule("mai"), "main"));
}

TEST(RecordFilters, RegularExpressionsAreSearchedInTheDemangledName) {
  EXPECT_TRUE(rule_matches(rule("^ns::"), "_ZN2ns5parseEi"));
  EXPECT_FALSE(rule_matches(rule("^ns::"), "_ZN3abc2nsEv"));  // abc::ns()
  EXPECT_TRUE(rule_matches(rule("par.e"), "_ZN2ns5parseEi"));
  EXPECT_TRUE(rule_matches(rule("."), "anything"));
  EXPECT_TRUE(rule_matches(rule("f|g"), "g"));
  EXPECT_FALSE(rule_matches(rule("^f$"), "ff"));
}

TEST(RecordFilters, BadPatternsAndTriggersAreErrorsNamingThem) {
  auto bad = parse_filter_rule(FilterAction::only, "a[");
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().message.find("a["), std::string::npos);
  EXPECT_FALSE(parse_filter_rule(FilterAction::notrace, ""));
  auto on = parse_trigger_rule("start@trace_on");
  ASSERT_TRUE(on);
  EXPECT_EQ(on->action, FilterAction::trace_on);
  EXPECT_EQ(on->pattern, "start");
  auto off = parse_trigger_rule("a@b@trace_off");  // the last '@' splits
  ASSERT_TRUE(off);
  EXPECT_EQ(off->action, FilterAction::trace_off);
  EXPECT_EQ(off->pattern, "a@b");
  EXPECT_FALSE(parse_trigger_rule("start"));
  auto unknown = parse_trigger_rule("start@sometimes");
  ASSERT_FALSE(unknown);
  EXPECT_NE(unknown.error().message.find("sometimes"), std::string::npos);
}

TEST(RecordFilters, TheFileListsRangesWithTheirActionLetters) {
  FilterPlan plan;
  plan.ranges = {FilterRange{"/bin/p", 0x1000, 0x1040, "FN", "f"}, FilterRange{"/lib/l.so", 0x20, 0x28, "+", "g"}};
  EXPECT_EQ(covkit::trace::filter_file_text(plan),
            "covkit-filters 2\nFN 1000 1040 /bin/p\n+ 20 28 /lib/l.so\n");
  // Then the rules again, for libraries loaded later.
  plan.later = {{'F', true, "plug_work"}, {'N', false, "^std::"}};
  EXPECT_EQ(covkit::trace::filter_file_text(plan),
            "covkit-filters 2\nFN 1000 1040 /bin/p\n+ 20 28 /lib/l.so\n?F =plug_work\n?N ~^std::\n");
  covkit::trace::PatchPlan patches;
  patches.sites = {{"/bin/p", 0x1130, "f"}};
  EXPECT_EQ(covkit::trace::patch_file_text(patches), "covkit-patch 2\n1130 /bin/p\n");
  // The patterns again, for libraries loaded later: exact names and regexes.
  patches.later = {{true, "plug_work"}, {false, "plug_.*"}};
  EXPECT_EQ(covkit::trace::patch_file_text(patches), "covkit-patch 2\n1130 /bin/p\n?=plug_work\n?~plug_.*\n");
}

TEST(RecordFilters, PatchPlanKeepsEveryPatternForLaterLibraries) {
  auto exact = parse_filter_rule(FilterAction::only, "no_such_function_anywhere");
  auto regex = parse_filter_rule(FilterAction::only, "^nothing_here_.*");
  ASSERT_TRUE(exact && regex);
  auto plan = covkit::trace::plan_patches({*exact, *regex}, {});
  EXPECT_TRUE(plan.sites.empty());
  EXPECT_EQ(plan.unmatched.size(), 2u);
  ASSERT_EQ(plan.later.size(), 2u);
  EXPECT_EQ(plan.later[0], std::make_pair(true, std::string("no_such_function_anywhere")));
  EXPECT_EQ(plan.later[1], std::make_pair(false, std::string("^nothing_here_.*")));
}

TEST(RecordFilters, AFunctionOfARealBinaryIsFoundWithItsSymbolsRange) {
  const std::string self = std::filesystem::canonical("/proc/self/exe").string();
  auto symbols = covkit::format::function_symbols(self);
  ASSERT_TRUE(symbols);
  const covkit::format::FunctionSymbol* probe = nullptr;
  for (const auto& s : *symbols)
    if (s.name == "covkit_filter_probe_fn") probe = &s;
  ASSERT_NE(probe, nullptr);
  ASSERT_EQ(covkit_filter_probe_fn(1), 8);

  FilterPlan plan = covkit::trace::plan_filters(
      {rule("covkit_filter_probe_fn"), rule("covkit_filter_probe_fn", FilterAction::trace_on),
       rule("no_function_is_named_so_here", FilterAction::notrace)},
      {self, "/nonexistent/lib.so"});
  ASSERT_EQ(plan.ranges.size(), 1u);
  EXPECT_EQ(plan.ranges[0].module, self);
  EXPECT_EQ(plan.ranges[0].lo, probe->address);
  EXPECT_EQ(plan.ranges[0].hi, probe->address + probe->size);
  EXPECT_EQ(plan.ranges[0].actions, "F+");
  EXPECT_EQ(plan.unmatched, std::vector<std::string>{"no_function_is_named_so_here"});
}

TEST(RecordFilters, ABinaryWithoutPatchableEntriesHasNoSites) {
  const std::string self = std::filesystem::canonical("/proc/self/exe").string();
  auto entries = covkit::format::patchable_entries(self);
  ASSERT_TRUE(entries);
  EXPECT_TRUE(entries->empty());
  auto plan = covkit::trace::plan_patches({rule(".")}, {self});
  EXPECT_EQ(plan.patchable, 0u);
  EXPECT_TRUE(plan.sites.empty());
  EXPECT_EQ(plan.unmatched, std::vector<std::string>{"."});
}

}  // namespace
