// sample/function_cfg, jump_tables, module_cfg on C compiled at test time
// with gcc-12: jump tables (PIE and not), tail calls, noreturn calls
// (library and found by the fixpoint), loops' back edges.
#include <gtest/gtest.h>

#include <algorithm>

#include "sample/binary_image.h"
#include "sample/instruction_decoder.h"
#include "sample/dominators.h"
#include "sample/module_cfg.h"
#include "test_support.h"

namespace covkit::sample {
namespace sample_cfg_test {

using covkit::testing::run_command;
using covkit::testing::TempDir;
using covkit::testing::write_text;

constexpr const char* kProgram = R"(#include <stdio.h>
#include <stdlib.h>
volatile int v0, v1, v2, v3, v4, v5, v6, v7, v8, v9;
__attribute__((noinline)) int dense(int x) {
  switch (x) {
    case 0: v0 = x; break;
    case 1: v1 = x + 1; break;
    case 2: v2 = x * 3; break;
    case 3: v3 = x - 4; break;
    case 4: v4 = x ^ 5; break;
    case 5: v5 = x | 6; break;
    case 6: v6 = x << 2; break;
    case 7: v7 = x + 8; break;
    case 8: v8 = x * 9; break;
    case 9: v9 = x - 10; break;
    default: v0 = -1; break;
  }
  return x;
}
__attribute__((noinline)) int callee(int x) { return x * 3 + v0; }
__attribute__((noinline)) int caller(int x) { return callee(x + 1); }
__attribute__((noinline)) int checked(int x) {
  if (x < 0) { puts("negative"); exit(2); }
  if (x > 1000) abort();
  return x + 1;
}
__attribute__((noinline)) void fatal(const char *m) { fputs(m, stderr); exit(1); }
__attribute__((noinline)) int guard(int x) { if (x == 42) fatal("x"); return x * 2; }
__attribute__((noinline)) int sum(int n) { int s = 0; for (int i = 0; i < n; i++) s += v1 * i; return s; }
int main(int argc, char **argv) {
  (void)argv;
  return dense(argc) + caller(argc) + checked(argc) + guard(argc) + sum(argc);
}
)";

class Compiled {
 public:
  // Builds kProgram with `flags`; skips (via ok() == false) without gcc-12.
  explicit Compiled(const std::string& flags) {
    if (run_command("command -v gcc-12 >/dev/null") != 0) {
      why_ = "gcc-12 is not installed";
      return;
    }
    write_text(dir_ / "p.c", kProgram);
    std::string out;
    if (run_command("cd '" + dir_.path() + "' && gcc-12 " + flags + " -o prog p.c", &out) != 0) {
      why_ = "gcc-12 failed: " + out;
      return;
    }
    auto img = load_binary_image(dir_ / "prog");
    if (!img) {
      why_ = img.error().message;
      return;
    }
    module_.emplace(build_module_cfg(std::move(*img)));
  }
  bool ok() const { return module_.has_value(); }
  const std::string& why() const { return why_; }
  const ModuleCfg& module() const { return *module_; }
  const FunctionCfg* function(const std::string& name) const {
    for (const FunctionCfg& f : module_->functions)
      if (f.name == name) return &f;
    return nullptr;
  }

 private:
  TempDir dir_;
  std::string why_;
  std::optional<ModuleCfg> module_;
};

#define REQUIRE_COMPILED(c) \
  if (!(c).ok()) GTEST_SKIP() << (c).why()

void expect_jump_table(const Compiled& c) {
  const FunctionCfg* f = c.function("dense");
  ASSERT_NE(f, nullptr);
  int tables = 0;
  for (const BasicBlock& b : f->blocks) {
    EXPECT_NE(b.kind, BlockEnd::unknown_jump) << "unresolved indirect jump at " << std::hex << b.start;
    if (b.kind != BlockEnd::jump_table) continue;
    ++tables;
    // Ten cases, each its own store: ten distinct targets, each a block start.
    EXPECT_GE(b.succ.size(), 10u);
    for (int s : b.succ) EXPECT_LT(size_t(s), f->blocks.size());
  }
  EXPECT_EQ(tables, 1);
}

// A branch with 0x66 and no REX.W is 7 bytes with a rel32 on Intel and 5
// with a rel16 on AMD (this machine is one): undecodable, so its function
// is not planted. REX.W overrides 0x66 on both (the TLS call sequence).
TEST(SampleCfg, BranchesWhoseLengthDependsOnTheVendorAreUndecodable) {
  const std::vector<std::vector<uint8_t>> vendor_dependent = {
      {0x66, 0x0f, 0x85, 1, 0, 0, 0},  // jne rel16 / rel32
      {0x66, 0xe8, 1, 0, 0, 0},        // call
      {0x66, 0xe9, 1, 0, 0, 0},        // jmp
      {0x66, 0xeb, 1},                 // jmp short: AMD cuts the target to 16 bits
      {0x66, 0xff, 0xe0},              // jmp *%ax / *%rax
      {0x66, 0xc3}};                   // ret: pops 2 bytes or 8
  for (const auto& b : vendor_dependent) {
    EXPECT_FALSE(decode_instruction(0x1000, b)) << int(b[1]);
    EXPECT_FALSE(instruction_length(b)) << int(b[1]);
  }
  const std::vector<uint8_t> tls_call = {0x66, 0x66, 0x48, 0xe8, 1, 0, 0, 0};
  auto call = decode_instruction(0x1000, tls_call);
  ASSERT_TRUE(call);
  EXPECT_EQ(call->size, 8);
  EXPECT_EQ(call->target, 0x1009u);
  EXPECT_EQ(instruction_length(tls_call), 8u);
  const std::vector<uint8_t> jne = {0x0f, 0x85, 1, 0, 0, 0};
  ASSERT_TRUE(decode_instruction(0x1000, jne));
  EXPECT_EQ(decode_instruction(0x1000, jne)->target, 0x1007u);
}

TEST(SampleCfg, JumpTableNonPie) {
  Compiled c("-O2 -g -no-pie -fno-pie");
  REQUIRE_COMPILED(c);
  EXPECT_FALSE(c.module().image.position_independent());
  expect_jump_table(c);
}

TEST(SampleCfg, JumpTablePie) {
  Compiled c("-O2 -g -fPIE -pie");
  REQUIRE_COMPILED(c);
  EXPECT_TRUE(c.module().image.position_independent());
  expect_jump_table(c);
}

TEST(SampleCfg, TailCallIsAnExit) {
  Compiled c("-O2 -g");
  REQUIRE_COMPILED(c);
  const FunctionCfg* caller = c.function("caller");
  const FunctionCfg* callee = c.function("callee");
  ASSERT_TRUE(caller && callee);
  bool found = false;
  for (const BasicBlock& b : caller->blocks) {
    if (b.kind != BlockEnd::tail_call) continue;
    found = true;
    EXPECT_TRUE(b.exits);
    EXPECT_TRUE(b.succ.empty());
    EXPECT_EQ(caller->insns[b.first_insn + b.insn_count - 1].target, callee->address);
  }
  EXPECT_TRUE(found);
}

// exit and abort (through the PLT) end their blocks with no successor:
// the code after them is not reached by falling through.
void expect_noreturn_library_calls(const Compiled& c) {
  std::set<std::string> seen;
  for (const FunctionCfg& f : c.module().functions) {
    if (!f.name.starts_with("checked")) continue;  // checked and gcc's checked.cold
    for (size_t i = 0; i < f.blocks.size(); ++i) {
      const BasicBlock& b = f.blocks[i];
      if (b.kind == BlockEnd::call) {
        EXPECT_NE(b.callee_name, "exit");
      }
      if (b.kind != BlockEnd::noreturn_call) continue;
      seen.insert(b.callee_name);
      EXPECT_TRUE(b.succ.empty()) << b.callee_name;
      EXPECT_TRUE(b.exits);
    }
  }
  EXPECT_TRUE(seen.count("exit"));
  EXPECT_TRUE(seen.count("abort"));
}

TEST(SampleCfg, NoFallThroughAfterExitOrAbortO2) {
  Compiled c("-O2 -g");
  REQUIRE_COMPILED(c);
  expect_noreturn_library_calls(c);
}

TEST(SampleCfg, NoFallThroughAfterExitOrAbortO0) {
  // At -O0 the next `if` follows the call to exit directly.
  Compiled c("-O0 -g");
  REQUIRE_COMPILED(c);
  expect_noreturn_library_calls(c);
  const FunctionCfg* f = c.function("checked");
  ASSERT_NE(f, nullptr);
  for (size_t i = 0; i + 1 < f->blocks.size(); ++i)
    if (f->blocks[i].kind == BlockEnd::noreturn_call) {
      int next = int(i + 1);
      EXPECT_EQ(std::count(f->blocks[i].succ.begin(), f->blocks[i].succ.end(), next), 0);
    }
}

TEST(SampleCfg, LocalNoreturnFunctionFoundByFixpoint) {
  for (const char* flags : {"-O0 -g", "-O2 -g"}) {
    Compiled c(flags);
    REQUIRE_COMPILED(c);
    const FunctionCfg* fatal = c.function("fatal");
    const FunctionCfg* guard = c.function("guard");
    ASSERT_TRUE(fatal && guard) << flags;
    EXPECT_TRUE(c.module().noreturn_functions.count(fatal->address)) << flags;
    EXPECT_FALSE(c.module().noreturn_functions.count(guard->address)) << flags;
    bool call_to_fatal = false;
    for (const FunctionCfg& g : c.module().functions)  // guard, or gcc's guard.cold
      for (const BasicBlock& b : g.blocks) {
        if (!g.name.starts_with("guard") || b.callee != fatal->address) continue;
        call_to_fatal = true;
        EXPECT_EQ(b.kind, BlockEnd::noreturn_call) << flags;
        EXPECT_TRUE(b.succ.empty()) << flags;
      }
    EXPECT_TRUE(call_to_fatal) << flags;
  }
}

TEST(SampleCfg, LoopHasABackEdge) {
  for (const char* flags : {"-O0 -g", "-O2 -g"}) {
    Compiled c(flags);
    REQUIRE_COMPILED(c);
    const FunctionCfg* f = c.function("sum");
    ASSERT_NE(f, nullptr);
    DominatorTree dom = compute_dominators(f->graph());
    int back_edges = 0;
    for (size_t b = 0; b < f->blocks.size(); ++b)
      for (int s : f->blocks[b].succ) back_edges += dom.dominates(s, int(b));
    EXPECT_GE(back_edges, 1) << flags;
  }
}

}  // namespace
}  // namespace covkit::sample
