// The pieces of the breakpoint recorder that need no process: the table of
// original bytes (and its copy at a fork), ELF address <-> process address
// with a PIE's load bias, plan lookup by build-id and path, the auxiliary
// vector and the r_brk shape check.
#include <elf.h>

#include <cstring>
#include <string>

#include <gtest/gtest.h>

#include "sample/address_space.h"
#include "sample/breakpoint_plan.h"
#include "sample/breakpoint_table.h"
#include "sample/dynamic_linker_hook.h"

namespace covkit::sample {
namespace {

TEST(BreakpointTable, KeepsTheOriginalByteUntilTheFirstHit) {
  BreakpointTable t;
  EXPECT_TRUE(t.add(0x1000, 0x55));
  EXPECT_FALSE(t.add(0x1000, 0xCC));  // planted already: the first byte stays
  EXPECT_TRUE(t.add(0x1010, 0xf3));
  EXPECT_EQ(t.armed(), 2u);
  ASSERT_EQ(t.disarm(0x1000), std::optional<uint8_t>(0x55));
  EXPECT_EQ(t.disarm(0x1000), std::nullopt);  // a second thread: nothing to restore
  ASSERT_NE(t.find(0x1000), nullptr);         // but still known as ours
  EXPECT_FALSE(t.find(0x1000)->armed);
  EXPECT_EQ(t.find(0x1001), nullptr);
  EXPECT_EQ(t.armed(), 1u);
}

TEST(BreakpointTable, PersistentSitesAreNeverDisarmed) {
  BreakpointTable t;
  t.add(0x2000, 0xc3, false, true);
  EXPECT_EQ(t.disarm(0x2000), std::nullopt);
  EXPECT_TRUE(t.find(0x2000)->armed);
}

TEST(BreakpointTable, ForgetDropsAnUnmappedRange) {
  BreakpointTable t;
  t.add(0x1000, 1);
  t.add(0x1fff, 2);
  t.add(0x2000, 3);
  t.forget(0x1000, 0x2000);
  EXPECT_EQ(t.size(), 1u);
  EXPECT_NE(t.find(0x2000), nullptr);
}

TEST(BreakpointTable, AForkedChildHasItsOwnCopy) {
  AddressSpace parent(100, 0);
  parent.table().add(0x1000, 0x55);
  parent.table().add(0x1004, 0x48);
  auto child = parent.fork_copy(101);
  EXPECT_EQ(child->pid(), 101);
  EXPECT_EQ(child->image(), 0u);
  ASSERT_TRUE(parent.table().disarm(0x1000));  // the parent hits it after the fork
  ASSERT_NE(child->table().find(0x1000), nullptr);
  EXPECT_TRUE(child->table().find(0x1000)->armed);  // still an int3 in the child's text
  EXPECT_EQ(child->table().disarm(0x1000), std::optional<uint8_t>(0x55));
}

// A PIE as ld.so maps it: text at file offset 0x1000, vaddr 0x1000, loaded
// at bias 0x555555554000; its text mapping starts at the page of offset 0x1000.
const std::vector<live::LoadSegment> kPieLoads = {
    {0x0, 0x600, 0x0, false, false},
    {0x1000, 0x1f5, 0x1000, false, true},
    {0x3db8, 0x258, 0x2db8, true, false},
};

TEST(PlanAddresses, PieBiasComesFromTheMappingOfTheFileOffset) {
  std::vector<format::SampleMapping> maps = {{0x555555555000, 0x555555556000, 0x1000, "/p", ""}};
  EXPECT_EQ(file_to_runtime(0x1139, kPieLoads, maps), std::optional<uint64_t>(0x555555555139));
  EXPECT_EQ(runtime_to_file(0x555555555139, kPieLoads, maps), std::optional<uint64_t>(0x1139));
  EXPECT_EQ(file_to_runtime(0x3dc0, kPieLoads, maps), std::nullopt);  // data, not code
  EXPECT_EQ(file_to_runtime(0x500, kPieLoads, maps), std::nullopt);   // not executable
  EXPECT_EQ(runtime_to_file(0x555555556000, kPieLoads, maps), std::nullopt);
}

TEST(PlanAddresses, FixedExecutableHasNoBias) {
  std::vector<live::LoadSegment> loads = {{0x400000, 0x600, 0, false, false},
                                          {0x401000, 0x200, 0x1000, false, true}};
  std::vector<format::SampleMapping> maps = {{0x401000, 0x402000, 0x1000, "/p", ""}};
  EXPECT_EQ(file_to_runtime(0x401126, loads, maps), std::optional<uint64_t>(0x401126));
  EXPECT_EQ(runtime_to_file(0x401126, loads, maps), std::optional<uint64_t>(0x401126));
}

TEST(PlanAddresses, UnmappedPartOfTheTextIsNotPlanted) {
  std::vector<live::LoadSegment> loads = {{0x1000, 0x3000, 0x1000, false, true}};
  std::vector<format::SampleMapping> maps = {{0x7f0000001000, 0x7f0000002000, 0x1000, "/l", ""}};
  EXPECT_TRUE(file_to_runtime(0x1fff, loads, maps));
  EXPECT_FALSE(file_to_runtime(0x2000, loads, maps));
}

TEST(BreakpointPlanTest, BuildIdFirstThenPath) {
  BreakpointPlan plan;
  plan.modules.push_back({"/a", "", {1}});
  plan.modules.push_back({"/b", "beef", {2}});
  EXPECT_EQ(plan.find("/elsewhere", "beef")->vaddrs[0], 2u);
  EXPECT_EQ(plan.find("/a", "")->vaddrs[0], 1u);
  EXPECT_EQ(plan.find("/a", "cafe")->vaddrs[0], 1u);  // the plan did not name a build-id
  EXPECT_EQ(plan.find("/b", "cafe"), nullptr);         // another build of /b
  auto provider = plan_provider(plan);
  auto none = provider(ModuleIdentity{"/c", "", {}});
  ASSERT_TRUE(none);
  EXPECT_TRUE(none->empty());
}

TEST(BreakpointTable, DisarmAllGivesEveryArmedSiteOnceSorted) {
  BreakpointTable t;
  t.add(0x300, 0x55);
  t.add(0x100, 0x48);
  t.add(0x200, 0xc3, false, true);  // the linker's hook: persistent, still given back
  ASSERT_TRUE(t.disarm(0x300));     // hit already: its byte is back
  auto all = t.disarm_all();
  std::vector<std::pair<uint64_t, uint8_t>> want = {{0x100, 0x48}, {0x200, 0xc3}};
  EXPECT_EQ(all, want);
  EXPECT_EQ(t.armed(), 0u);
  EXPECT_TRUE(t.disarm_all().empty());
}

TEST(DynamicLinkerHook, AuxvAndReturnShape) {
  uint64_t words[] = {AT_PHDR, 0x400040, AT_BASE, 0x7f0000000000, AT_NULL, 0, AT_ENTRY, 1};
  std::string_view auxv(reinterpret_cast<const char*>(words), sizeof words);
  EXPECT_EQ(auxv_value(auxv, AT_BASE), std::optional<uint64_t>(0x7f0000000000));
  EXPECT_EQ(auxv_value(auxv, AT_ENTRY), std::nullopt);  // after AT_NULL
  const uint8_t ret[] = {0xc3}, endbr_ret[] = {0xf3, 0x0f, 0x1e, 0xfa, 0xc3}, push[] = {0x55, 0xc3};
  EXPECT_TRUE(is_plain_return(ret));
  EXPECT_TRUE(is_plain_return(endbr_ret));
  EXPECT_FALSE(is_plain_return(push));
}

}  // namespace
}  // namespace covkit::sample
