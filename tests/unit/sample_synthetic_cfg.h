#pragma once
// Hand-made CFGs for the sample/ tests: blocks of 2-byte instructions at
// chosen addresses, with chosen ends and successors, so that the answers
// of path recovery, inference and breakpoint placement are known.
#include <vector>

#include "sample/module_cfg.h"

namespace covkit::testing {

struct BlockSpec {
  int insns = 2;
  sample::BlockEnd kind = sample::BlockEnd::fallthrough;
  std::vector<int> succ;
  bool exits = false;
};

// A function at `address` made of consecutive blocks.
inline sample::FunctionCfg synthetic_function(const std::string& name, uint64_t address,
                                              const std::vector<BlockSpec>& specs) {
  sample::FunctionCfg f;
  f.name = name;
  f.address = address;
  uint64_t a = address;
  for (const BlockSpec& s : specs) {
    sample::BasicBlock b;
    b.start = a;
    b.first_insn = f.insns.size();
    b.insn_count = size_t(s.insns);
    for (int i = 0; i < s.insns; ++i) {
      sample::DecodedInsn d;
      d.address = a;
      d.size = 2;
      f.insns.push_back(d);
      a += 2;
    }
    b.end = a;
    b.kind = s.kind;
    b.succ = s.succ;
    b.exits = s.exits;
    f.blocks.push_back(b);
  }
  f.size = a - address;
  return f;
}

inline sample::ModuleCfg synthetic_module(std::vector<sample::FunctionCfg> functions) {
  sample::ModuleCfg m;
  m.functions = std::move(functions);
  return m;
}

}  // namespace covkit::testing
