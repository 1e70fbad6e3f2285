// blocks/block_counts: blocks without a hook of their own get the count the
// flow of control gives them (a `break;` jump gcc splits off after the hooks
// were placed), only when every count is exact, never against equations that
// disagree; and a hook's call under another line's row says nothing of it.
#include "blocks/block_counts.h"

#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

namespace covkit::blocks {
namespace block_counts_test {

using sample::BlockEnd;

// Blocks of one 5-byte instruction each, one after the other (a hook block:
// a call to __sanitizer_cov_trace_pc; with `guard`, a 7-byte lea of %rdi
// before it).
struct Builder {
  sample::FunctionCfg f;

  void add(BlockEnd kind, std::vector<int> succ, bool hook = false, bool guard = false) {
    sample::BasicBlock b;
    b.start = f.blocks.empty() ? 0 : f.blocks.back().end;
    b.first_insn = f.insns.size();
    if (guard) {
      sample::DecodedInsn lea;
      lea.address = b.start;
      lea.size = 7;
      lea.op = sample::Op::lea;
      lea.writes = sample::reg_bit(sample::Reg::rdi);
      f.insns.push_back(lea);
    }
    sample::DecodedInsn last;
    last.address = b.start + (guard ? 7 : 0);
    last.size = 5;
    f.insns.push_back(last);
    b.insn_count = f.insns.size() - b.first_insn;
    b.end = last.next();
    b.kind = kind;
    b.succ = std::move(succ);
    b.exits = kind == BlockEnd::ret;
    if (hook) b.callee_name = guard ? "__sanitizer_cov_trace_pc_guard" : "__sanitizer_cov_trace_pc";
    f.blocks.push_back(b);
  }
};

// if (c) { ...; return; } break;  - block 3 is the `break;` jump, no hook:
//   0 hook -> 1 cmp/jcc -> 2 hook (then) -> 4 jmp -> 5 hook (join) -> 6 ret
//                       -> 3 nop (break) ---------> 5
sample::FunctionCfg break_function() {
  Builder b;
  b.add(BlockEnd::call, {1}, true);
  b.add(BlockEnd::cond_jump, {2, 3});
  b.add(BlockEnd::call, {4}, true);
  b.add(BlockEnd::fallthrough, {5});
  b.add(BlockEnd::jump, {5});
  b.add(BlockEnd::call, {6}, true);
  b.add(BlockEnd::ret, {});
  b.f.size = 0x70;
  return b.f;
}

std::vector<sample::BlockState> counted(const sample::FunctionCfg& f, const std::map<int, int64_t>& observed,
                                        bool exact) {
  auto states = sample::infer_blocks(f, observed, sample::InferenceMode::shye);
  std::vector<char> unseen(f.blocks.size(), 0);
  unseen[0] = 1;
  exact_counts(f, observed, exact, unseen, states);
  return states;
}

TEST(BlockCounts, ABlockWithoutAHookRunsAsTheFlowSays) {
  const auto f = break_function();
  auto states = counted(f, {{0, 10}, {2, 3}, {5, 10}}, true);
  EXPECT_TRUE(states[3].executed);
  EXPECT_EQ(states[3].count, 7);
  EXPECT_TRUE(states[1].executed);
  EXPECT_EQ(states[1].count, 10);
  EXPECT_EQ(states[4].count, 3);
}

TEST(BlockCounts, ABlockTheFlowLeavesNothingForDidNotRun) {
  auto states = counted(break_function(), {{0, 10}, {2, 10}, {5, 10}}, true);
  EXPECT_FALSE(states[3].executed);
}

// A hooked block absent from the files ran 0 times only when every count
// is exact: inline counters (modulo 256, or flags) and dropped addresses
// say nothing of it.
TEST(BlockCounts, InexactCountsInferNothingFromFlow) {
  auto states = counted(break_function(), {{0, 10}, {2, 3}, {5, 10}}, false);
  EXPECT_FALSE(states[3].executed);
}

// Equations that disagree (a call that did not return, control that came
// in unseen) leave the function as the straight runs gave it.
TEST(BlockCounts, EquationsThatDisagreeChangeNothing) {
  auto states = counted(break_function(), {{0, 10}, {2, 3}, {5, 20}}, true);
  EXPECT_FALSE(states[3].executed);
}

// After setjmp (or fork) control comes back more often than the call was
// made: the block after it gets no equation from its entries.
TEST(BlockCounts, NoEquationIntoTheBlockAfterACallThatReturnsTwice) {
  Builder b;
  b.add(BlockEnd::call, {1}, true);           // 0: hook
  b.add(BlockEnd::call, {2});                 // 1: call _setjmp
  b.add(BlockEnd::cond_jump, {3, 4});         // 2: if (setjmp(...))
  b.add(BlockEnd::call, {5}, true);           // 3: hook (the second return)
  b.add(BlockEnd::fallthrough, {5});          // 4: no hook
  b.add(BlockEnd::ret, {});                   // 5
  b.f.blocks[1].callee_name = "_setjmp";
  b.f.size = 0x60;
  // Two returns from one call: 2 ran twice, 3 once, 4 once.
  auto with_setjmp = counted(b.f, {{0, 1}, {3, 1}}, true);
  EXPECT_FALSE(with_setjmp[4].executed) << "block 2's count is not block 1's";
  b.f.blocks[1].callee_name = "g";
  auto plain = counted(b.f, {{0, 1}, {3, 1}}, true);
  EXPECT_FALSE(plain[4].executed) << "1 - 1 = 0";
  auto ran = counted(b.f, {{0, 2}, {3, 1}}, true);
  EXPECT_TRUE(ran[4].executed);
}

// A computed goto's label block (1) that clang left without a hook: its
// hooked successor ran and has it as its only way in, unless control may
// enter that successor by the indirect jump too.
TEST(BlockCounts, OneWayInAfterAnIndirectJump) {
  Builder b;
  b.add(BlockEnd::unknown_jump, {});        // 0: goto *p
  b.add(BlockEnd::cond_jump, {2, 3});       // 1: label: if (...)
  b.add(BlockEnd::call, {4}, true);         // 2: hook
  b.add(BlockEnd::fallthrough, {4});        // 3
  b.add(BlockEnd::ret, {});                 // 4
  b.f.unknown_jumps = true;
  b.f.blocks[0].exits = true;
  for (size_t i = 1; i < b.f.blocks.size(); ++i) b.f.blocks[i].candidate = true;
  b.f.size = 0x30;
  const std::map<int, int64_t> observed{{0, 1}, {2, 1}};
  auto states = sample::infer_blocks(b.f, observed, sample::InferenceMode::shye);
  auto unseen_everywhere = states;
  exact_counts(b.f, observed, false, {1, 1, 1, 1, 1}, unseen_everywhere);
  EXPECT_FALSE(unseen_everywhere[1].executed) << "any row may be the jump's target";
  exact_counts(b.f, observed, false, {1, 1, 0, 0, 0}, states);
  EXPECT_TRUE(states[1].executed) << "only the label's address is taken";
  EXPECT_FALSE(states[3].executed);
}

TEST(BlockCounts, HookBlocks) {
  Builder b;
  b.add(BlockEnd::call, {1}, true);
  b.add(BlockEnd::call, {2}, true, true);
  b.add(BlockEnd::call, {});
  EXPECT_TRUE(is_hook_block(b.f, b.f.blocks[0]));
  EXPECT_TRUE(is_hook_block(b.f, b.f.blocks[1]));
  EXPECT_FALSE(is_hook_block(b.f, b.f.blocks[2]));
  b.f.insns[b.f.blocks[1].first_insn].writes = sample::reg_bit(sample::Reg::rax);
  EXPECT_FALSE(is_hook_block(b.f, b.f.blocks[1])) << "code of its own before the call";
}

// A hook block no row begins in (gcc's hook of a join) is lineless; one the
// compiler gave a row of its own is not.
TEST(BlockCounts, HookUnderAnotherLinesRowIsLineless) {
  const auto f = break_function();
  sample::LineTable lines;
  lines.has_debug_info = true;
  lines.files = {"/src/p.c"};
  auto row = [&](uint64_t lo, uint64_t hi, uint32_t line) {
    sample::LineRange r;
    r.lo = lo;
    r.hi = hi;
    r.line = line;
    r.is_stmt = true;
    lines.ranges.push_back(r);
  };
  row(0x00, 0x0f, 10);  // blocks 0-2
  row(0x0f, 0x14, 11);  // block 3
  row(0x14, 0x23, 12);  // blocks 4-6: block 5's hook and the return after it sit under line 12's row
  std::vector<sample::BlockState> states(f.blocks.size());
  mark_lineless(f, lines, states);
  EXPECT_FALSE(states[0].lineless) << "line 10's row begins at its hook";
  EXPECT_TRUE(states[2].lineless) << "under line 10's row, begun at block 0";
  EXPECT_FALSE(states[3].lineless) << "no hook block";
  EXPECT_FALSE(states[4].lineless) << "line 12's row begins in it";
  EXPECT_TRUE(states[5].lineless) << "under line 12's row, begun at block 4";
  EXPECT_TRUE(states[6].lineless) << "the straight run on from block 5, no row of its own";
}

}  // namespace block_counts_test
}  // namespace covkit::blocks
