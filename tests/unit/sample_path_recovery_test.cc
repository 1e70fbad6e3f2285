// sample/path_recovery and sample/inference on hand-made CFGs: which blocks
// a branch vector, steps, stacks and ips prove, and what dominators and
// post-dominators add, all known by construction.
#include "sample/path_recovery.h"

#include <gtest/gtest.h>

#include "sample/inference.h"
#include "sample/sample_analysis.h"
#include "sample_synthetic_cfg.h"

namespace covkit::sample {
namespace sample_path_recovery_test {

using covkit::testing::BlockSpec;
using covkit::testing::synthetic_function;
using covkit::testing::synthetic_module;

// f at 0x1000, a diamond:
//   B0 [1000,1004) cond: taken -> B2, else B1
//   B1 [1004,1008) jump -> B3
//   B2 [1008,100c) falls into B3
//   B3 [100c,1010) ret
// g at 0x2000: one block [2000,2004) ending in a call, then [2004,2008) ret.
ModuleCfg diamond_module() {
  using K = BlockEnd;
  return synthetic_module({
      synthetic_function("f", 0x1000,
                         {{2, K::cond_jump, {2, 1}}, {2, K::jump, {3}}, {2, K::fallthrough, {3}}, {2, K::ret, {}, true}}),
      synthetic_function("g", 0x2000, {{2, K::call, {1}}, {2, K::ret, {}, true}}),
  });
}

Located at(uint64_t a) { return {0, a}; }

std::set<std::pair<int, int>> blocks_of(const std::vector<ModuleBlock>& v) {
  std::set<std::pair<int, int>> out;
  for (const ModuleBlock& b : v) out.insert({b.block.function, b.block.block});
  return out;
}

std::set<std::pair<int, int>> recover(const ModuleCfg& m, const SampleEvidence& e, RecoveryStats* stats = nullptr) {
  std::vector<const ModuleCfg*> mods{&m};
  return blocks_of(recover_blocks(mods, e, stats));
}

TEST(SamplePathRecovery, RangeWithinOneBlockAndTheLastTarget) {
  ModuleCfg m = diamond_module();
  SampleEvidence e;
  // Something called f (from g's call), f took its conditional jump to B2.
  e.branches = {{at(0x2002), at(0x1000)}, {at(0x1002), at(0x1008)}};
  RecoveryStats st;
  EXPECT_EQ(recover(m, e, &st), (std::set<std::pair<int, int>>{{1, 0}, {0, 0}, {0, 2}}));
  EXPECT_EQ(st.ranges, 1u);
  EXPECT_EQ(st.ranges_dropped, 0u);
}

TEST(SamplePathRecovery, RangeThroughAFallThrough) {
  ModuleCfg m = diamond_module();
  SampleEvidence e;
  // Entered B2, fell into B3, returned from B3's last instruction.
  e.branches = {{at(0x1002), at(0x1008)}, {at(0x100e), at(0x2004)}};
  EXPECT_EQ(recover(m, e), (std::set<std::pair<int, int>>{{0, 0}, {0, 2}, {0, 3}, {1, 1}}));
}

TEST(SamplePathRecovery, RangeCrossingAJumpIsDroppedNotInvented) {
  ModuleCfg m = diamond_module();
  SampleEvidence e;
  // B1 ends in a jump, so B1 -> B2 without a recorded branch contradicts the CFG.
  e.branches = {{at(0x2002), at(0x1004)}, {at(0x100a), at(0x2004)}};
  RecoveryStats st;
  // Only the pairs' own ends: g's call block, B2 (from), g's second block (last to).
  EXPECT_EQ(recover(m, e, &st), (std::set<std::pair<int, int>>{{1, 0}, {0, 2}, {1, 1}}));
  EXPECT_EQ(st.ranges_dropped, 1u);
}

TEST(SamplePathRecovery, RangeAcrossFunctionsOrBackwardsIsDropped) {
  ModuleCfg m = diamond_module();
  EXPECT_FALSE(straight_line_range(m, 0x100c, 0x2000));  // crosses f's ret into g
  EXPECT_FALSE(straight_line_range(m, 0x1008, 0x1004));  // backwards
  EXPECT_FALSE(straight_line_range(m, 0x1001, 0x1002));  // not an instruction boundary
  auto r = straight_line_range(m, 0x1008, 0x100e);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->size(), 2u);
}

TEST(SamplePathRecovery, StepsIpAndReturnAddresses) {
  ModuleCfg m = diamond_module();
  SampleEvidence e;
  e.steps = {at(0x1004), at(0x1006)};
  e.ip = at(0x100c);
  e.stack = {at(0x2004), at(0x1006)};  // after g's call: g's B0; 0x1006 follows no call: nothing
  RecoveryStats st;
  EXPECT_EQ(recover(m, e, &st), (std::set<std::pair<int, int>>{{0, 1}, {0, 3}, {1, 0}}));
  SampleEvidence outside;
  outside.ip = at(0x5000);
  recover(m, outside, &st);
  EXPECT_EQ(st.unplaced, 1u);
}

std::vector<bool> executed(const std::vector<BlockState>& s) {
  std::vector<bool> out;
  for (const BlockState& b : s) out.push_back(b.executed);
  return out;
}

TEST(SampleInference, DiamondByMode) {
  ModuleCfg m = diamond_module();
  const FunctionCfg& f = m.functions[0];
  std::map<int, int64_t> seen{{1, 5}};  // B1 seen in 5 samples
  EXPECT_EQ(executed(infer_blocks(f, seen, InferenceMode::none)), (std::vector<bool>{false, true, false, false}));
  EXPECT_EQ(executed(infer_blocks(f, seen, InferenceMode::dominators)), (std::vector<bool>{true, true, false, false}));
  auto shye = infer_blocks(f, seen, InferenceMode::shye);
  EXPECT_EQ(executed(shye), (std::vector<bool>{true, true, false, true}));
  EXPECT_TRUE(shye[1].observed);
  EXPECT_FALSE(shye[3].observed);
  EXPECT_EQ(shye[3].count, 5);  // implied by B1's count
  EXPECT_EQ(executed(infer_blocks(f, seen, InferenceMode::sound)), (std::vector<bool>{true, true, false, true}));
}

TEST(SampleInference, LoopAndCalls) {
  using K = BlockEnd;
  // B0 -> B1 (header: cond) -> B2 (body, calls, back to B1) | B3 ret
  FunctionCfg f = synthetic_function(
      "loop", 0x3000, {{2, K::fallthrough, {1}}, {2, K::cond_jump, {3, 2}}, {2, K::call, {1}}, {2, K::ret, {}, true}});
  std::map<int, int64_t> body{{2, 1}};
  EXPECT_EQ(executed(infer_blocks(f, body, InferenceMode::dominators)), (std::vector<bool>{true, true, true, false}));
  // Shye trusts the call to return, so the exit ran; sound mode does not cross the call.
  EXPECT_EQ(executed(infer_blocks(f, body, InferenceMode::shye)), (std::vector<bool>{true, true, true, true}));
  EXPECT_EQ(executed(infer_blocks(f, body, InferenceMode::sound)), (std::vector<bool>{true, true, true, false}));
  // The entry block ran: in sound mode it implies the header (no call in
  // between) but not the exit (the body's call may never return); Shye's does.
  std::map<int, int64_t> entry{{0, 1}};
  EXPECT_EQ(executed(infer_blocks(f, entry, InferenceMode::sound)), (std::vector<bool>{true, true, false, false}));
  EXPECT_EQ(executed(infer_blocks(f, entry, InferenceMode::shye)), (std::vector<bool>{true, true, false, true}));
  // A window of the run (--pid): the body ran in it, its dominators (the
  // set-up, the header) may have run before it opened; only what follows
  // a hit for sure is inferred: the header after the body (no call after
  // it... but the body ends in a call, which may not return), so nothing.
  EXPECT_EQ(executed(infer_blocks(f, body, InferenceMode::dominators, true)),
            (std::vector<bool>{false, false, true, false}));
  // The header seen in the window: the exit does not follow for sure (the
  // body's call may never return); without that call, it would.
  std::map<int, int64_t> header{{1, 1}};
  EXPECT_EQ(executed(infer_blocks(f, header, InferenceMode::dominators, true)),
            (std::vector<bool>{false, true, false, false}));
  FunctionCfg plain = synthetic_function(
      "plain", 0x3000, {{2, K::fallthrough, {1}}, {2, K::cond_jump, {3, 2}}, {2, K::jump, {1}}, {2, K::ret, {}, true}});
  EXPECT_EQ(executed(infer_blocks(plain, header, InferenceMode::dominators, true)),
            (std::vector<bool>{false, true, false, true}));
  EXPECT_EQ(executed(infer_blocks(f, header, InferenceMode::none, true)), (std::vector<bool>{false, true, false, false}));
}

TEST(SampleBreakpointSites, OnlyBlocksNotImpliedByOthers) {
  using K = BlockEnd;
  // A chain: B0 -> B1 -> B2 ret. Only the last needs a breakpoint.
  ModuleCfg chain = synthetic_module(
      {synthetic_function("c", 0x1000, {{2, K::fallthrough, {1}}, {2, K::fallthrough, {2}}, {2, K::ret, {}, true}})});
  EXPECT_EQ(breakpoint_sites(chain).vaddrs, (std::vector<uint64_t>{0x1008}));
  // In a window (--pid) the first of the chain is planted instead: its hit
  // proves the rest ran after it.
  EXPECT_EQ(breakpoint_sites(chain, PlanWindow::attached).vaddrs, (std::vector<uint64_t>{0x1000}));
  // A loop after a set-up: B0 -> B1 (header) -> B2 (body) -> B1, B1 -> B3
  // ret. A whole run plants the body and the end (B3's hit proves B1, and
  // B1's B0). A window plants the set-up, the header (it runs again
  // without B0, which may have run before the attach) and the body; the
  // end, entered from the header alone, is proved by it.
  ModuleCfg loop = synthetic_module({synthetic_function(
      "l", 0x1000,
      {{2, K::fallthrough, {1}}, {2, K::cond_jump, {2, 3}}, {2, K::jump, {1}}, {2, K::ret, {}, true}})});
  EXPECT_EQ(breakpoint_sites(loop).vaddrs, (std::vector<uint64_t>{0x1008, 0x100c}));
  EXPECT_EQ(breakpoint_sites(loop, PlanWindow::attached).vaddrs, (std::vector<uint64_t>{0x1000, 0x1004, 0x1008}));
  // The diamond: B0 is implied by its post-dominating child B3; B1, B2, B3 are leaves.
  ModuleCfg d = diamond_module();
  std::vector<uint64_t> sites = breakpoint_sites(d).vaddrs;
  EXPECT_EQ(std::vector<uint64_t>(sites.begin(), sites.begin() + 3), (std::vector<uint64_t>{0x1004, 0x1008, 0x100c}));
  // g: its first block ends in a call that may not return, so both are planted.
  EXPECT_EQ(std::vector<uint64_t>(sites.begin() + 3, sites.end()), (std::vector<uint64_t>{0x2000, 0x2004}));
}

}  // namespace
}  // namespace covkit::sample
