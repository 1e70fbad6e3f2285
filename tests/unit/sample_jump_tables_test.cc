// sample/indirect_jumps through function_cfg, on one small program per
// jump-table shape (tests/sample_cfg/progs), compiled at test time with
// gcc-12 PIE (relative tables), non-PIE (absolute), with a section per
// function and its data (tables in .rodata.<fn>), and at -O0: every
// dispatch of the functions below is resolved (no jump of unknown
// targets), its targets are block starts, and no block starts on padding.
#include <gtest/gtest.h>

#include <map>
#include <set>

#include "sample/binary_image.h"
#include "sample/line_table.h"
#include "sample/module_cfg.h"
#include "sample/sample_analysis.h"
#include "test_support.h"

namespace covkit::sample {
namespace sample_jump_tables_test {

using covkit::testing::run_command;
using covkit::testing::TempDir;

const std::string kProgs = std::string(COVKIT_TEST_DATA_DIR) + "/../sample_cfg/progs/";

struct Shape {
  const char* program;
  std::vector<const char*> functions;  // each holds at least one dispatch
  size_t min_targets;                  // distinct targets of each dispatch, at least
};

const Shape kShapes[] = {
    {"computed_goto.c", {"run"}, 8},
    {"hoisted_base.c", {"interpret"}, 8},
    {"bounds.c", {"biased", "in_memory", "by_byte", "far_check"}, 6},
    {"cold_cases.c", {"classify"}, 5},
};

const char* const kFlags[] = {"-O2 -g -fPIE -pie", "-O2 -g -no-pie -fno-pie",
                              "-O2 -g -fPIE -pie -ffunction-sections -fdata-sections", "-O0 -g"};

struct Built {
  TempDir dir;
  std::optional<ModuleCfg> module;
  std::string why;
};

void build(Built& b, const std::string& program, const std::string& flags) {
  if (run_command("command -v gcc-12 >/dev/null") != 0) {
    b.why = "gcc-12 is not installed";
    return;
  }
  std::string out;
  if (run_command("cd '" + b.dir.path() + "' && gcc-12 " + flags + " -o prog '" + kProgs + program + "'", &out) != 0) {
    b.why = "gcc-12 failed: " + out;
    return;
  }
  auto img = load_binary_image(b.dir / "prog");
  auto lines = load_line_table(b.dir / "prog");
  if (!img || !lines) {
    b.why = "cannot load the program";
    return;
  }
  b.module.emplace(build_module_cfg(std::move(*img), *lines));
}

TEST(SampleJumpTables, EveryShapeIsResolvedAndPlantedAtCaseEntries) {
  for (const Shape& shape : kShapes)
    for (const char* flags : kFlags) {
      SCOPED_TRACE(std::string(shape.program) + " " + flags);
      Built b;
      build(b, shape.program, flags);
      if (!b.module) GTEST_SKIP() << b.why;
      const ModuleCfg& m = *b.module;
      std::vector<uint64_t> sites = breakpoint_sites(m).vaddrs;
      std::set<uint64_t> planted(sites.begin(), sites.end());
      for (const char* name : shape.functions) {
        const FunctionCfg* f = nullptr;
        for (const FunctionCfg& g : m.functions)
          if (g.name == name) f = &g;
        ASSERT_NE(f, nullptr) << name;
        EXPECT_TRUE(f->complete) << name << ": " << f->problem;
        EXPECT_FALSE(f->unknown_jumps) << name;
        size_t tables = 0;
        for (const BasicBlock& b2 : f->blocks) {
          EXPECT_NE(b2.kind, BlockEnd::unknown_jump) << name << " at " << std::hex << b2.start;
          if (b2.kind != BlockEnd::jump_table) continue;
          ++tables;
          // Targets out of the function (the .cold part) count as an exit.
          EXPECT_GE(b2.succ.size() + (b2.exits ? 1 : 0), std::min<size_t>(shape.min_targets, 6)) << name;
        }
        EXPECT_GE(tables, 1u) << name;
        // No block of it is padding: every block's first instruction is
        // no nop unless control falls into it from the block before.
        for (size_t i = 0; i < f->blocks.size(); ++i) {
          const DecodedInsn& first = f->insns[f->blocks[i].first_insn];
          if (!first.nop) continue;
          bool fallen_into = i > 0 && f->blocks[i - 1].end == f->blocks[i].start &&
                             (f->blocks[i - 1].kind == BlockEnd::fallthrough || f->blocks[i - 1].kind == BlockEnd::call ||
                              f->blocks[i - 1].kind == BlockEnd::cond_jump);
          EXPECT_TRUE(fallen_into) << name << ": a block of padding at " << std::hex << f->blocks[i].start;
        }
      }
      // Every planted site is a block start of a complete function.
      for (uint64_t s : planted) {
        auto ref = m.locate(s);
        ASSERT_TRUE(ref) << std::hex << s;
        EXPECT_EQ(m.block(*ref).start, s);
        EXPECT_TRUE(m.functions[size_t(ref->function)].complete);
      }
    }
}

// The computed goto's table in a PIE holds relocations, zeros in the file:
// the targets come from .rela.dyn, and the table ends with its symbol.
TEST(SampleJumpTables, ComputedGotoTableComesFromRelocations) {
  Built b;
  build(b, "computed_goto.c", "-O2 -g -fPIE -pie");
  if (!b.module) GTEST_SKIP() << b.why;
  for (const FunctionCfg& f : b.module->functions) {
    if (f.name != "run") continue;
    std::set<int> targets;
    for (const BasicBlock& blk : f.blocks)
      if (blk.kind == BlockEnd::jump_table) targets.insert(blk.succ.begin(), blk.succ.end());
    EXPECT_EQ(targets.size(), 8u);  // eight labels, no more (the table's symbol has 8 entries)
    return;
  }
  FAIL() << "no function run";
}

}  // namespace sample_jump_tables_test
}  // namespace covkit::sample
