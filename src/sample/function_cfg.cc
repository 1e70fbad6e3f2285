#include "sample/function_cfg.h"

#include <algorithm>
#include <map>
#include <set>

#include "sample/jump_tables.h"

namespace covkit::sample {

namespace {

bool inside(const FunctionSymbol& fn, uint64_t a) { return a >= fn.address && a - fn.address < fn.size; }

bool ends_block(Flow f) { return f != Flow::plain; }

std::string called_name(const BinaryImage& image, const DecodedInsn& in) {
  if (in.rip_slot) return image.got_slot_name(in.target);
  return image.callee_name(in.target);
}

}  // namespace

FunctionCfg build_function_cfg(const BinaryImage& image, const FunctionSymbol& fn, std::vector<DecodedInsn> insns,
                               const NoreturnOracle& noreturn) {
  FunctionCfg cfg;
  cfg.name = fn.name;
  cfg.address = fn.address;
  cfg.size = fn.size;
  cfg.insns = std::move(insns);
  const auto& in = cfg.insns;
  if (in.empty()) return cfg;

  // Jump tables first: their targets are leaders.
  std::map<size_t, std::vector<uint64_t>> tables;
  for (size_t i = 0; i < in.size(); ++i)
    if (in[i].flow == Flow::indirect_jump && !in[i].rip_slot)
      if (auto t = resolve_jump_table(image, in, i, fn.address, fn.address + fn.size)) tables[i] = std::move(*t);

  std::set<uint64_t> leaders{fn.address};
  for (size_t i = 0; i < in.size(); ++i) {
    const DecodedInsn& d = in[i];
    if ((d.flow == Flow::jump || d.flow == Flow::cond_jump) && inside(fn, d.target)) leaders.insert(d.target);
    if (ends_block(d.flow) && i + 1 < in.size()) leaders.insert(in[i + 1].address);
  }
  for (auto& [i, targets] : tables) leaders.insert(targets.begin(), targets.end());

  // Cut the instruction list at the leaders (a target that is not an
  // instruction boundary - overlapping code - is ignored).
  for (size_t i = 0; i < in.size();) {
    BasicBlock b;
    b.start = in[i].address;
    b.first_insn = i;
    do {
      ++i;
    } while (i < in.size() && !ends_block(in[i - 1].flow) && !leaders.count(in[i].address));
    b.insn_count = i - b.first_insn;
    b.end = in[i - 1].next();
    cfg.blocks.push_back(std::move(b));
  }

  auto next_block = [&](size_t bi) { return bi + 1 < cfg.blocks.size() ? int(bi + 1) : -1; };
  for (size_t bi = 0; bi < cfg.blocks.size(); ++bi) {
    BasicBlock& b = cfg.blocks[bi];
    size_t li = b.first_insn + b.insn_count - 1;
    const DecodedInsn& last = in[li];
    auto add = [&](int s) {
      if (s >= 0 && std::find(b.succ.begin(), b.succ.end(), s) == b.succ.end()) b.succ.push_back(s);
    };
    auto fall = [&] {
      int n = next_block(bi);
      if (n >= 0) add(n);
      else b.exits = true;  // runs off the symbol's end: treat as leaving
    };
    switch (last.flow) {
      case Flow::plain:
        b.kind = next_block(bi) >= 0 ? BlockEnd::fallthrough : BlockEnd::falls_off;
        fall();
        break;
      case Flow::cond_jump:
        b.kind = BlockEnd::cond_jump;
        if (inside(fn, last.target)) add(cfg.block_at(last.target));
        else b.exits = true;  // a conditional tail call or a jump to a .cold part
        fall();
        break;
      case Flow::jump:
        if (inside(fn, last.target) && cfg.block_at(last.target) >= 0) {
          b.kind = BlockEnd::jump;
          add(cfg.block_at(last.target));
        } else {
          b.kind = BlockEnd::tail_call;
          b.exits = true;
        }
        break;
      case Flow::indirect_jump:
        if (auto t = tables.find(li); t != tables.end()) {
          b.kind = BlockEnd::jump_table;
          for (uint64_t target : t->second) add(cfg.block_at(target));
        } else {
          // jmp *slot(%rip) is a tail call through the GOT; anything else unknown.
          b.kind = last.rip_slot ? BlockEnd::tail_call : BlockEnd::unknown_jump;
          b.exits = true;
        }
        break;
      case Flow::call:
      case Flow::indirect_call: {
        bool known_target = last.flow == Flow::call || last.rip_slot;
        b.callee = last.flow == Flow::call ? last.target : 0;
        b.callee_name = known_target ? called_name(image, last) : std::string();
        if (known_target && noreturn(last.rip_slot ? 0 : last.target, b.callee_name)) {
          b.kind = BlockEnd::noreturn_call;
          b.exits = true;
        } else {
          b.kind = BlockEnd::call;
          fall();
        }
        break;
      }
      case Flow::ret:
        b.kind = BlockEnd::ret;
        b.exits = true;
        break;
      case Flow::halt:
      case Flow::invalid:
        b.kind = BlockEnd::halt;
        b.exits = true;
        break;
    }
  }
  return cfg;
}

int FunctionCfg::block_at(uint64_t vaddr) const {
  auto it = std::upper_bound(blocks.begin(), blocks.end(), vaddr,
                             [](uint64_t a, const BasicBlock& b) { return a < b.start; });
  if (it == blocks.begin()) return -1;
  --it;
  return vaddr < it->end ? int(it - blocks.begin()) : -1;
}

int FunctionCfg::insn_at(uint64_t vaddr) const {
  auto it = std::lower_bound(insns.begin(), insns.end(), vaddr,
                             [](const DecodedInsn& d, uint64_t a) { return d.address < a; });
  return it != insns.end() && it->address == vaddr ? int(it - insns.begin()) : -1;
}

Graph FunctionCfg::graph() const {
  Graph g;
  g.entry = 0;
  for (const BasicBlock& b : blocks) g.succ.push_back(b.succ);
  return g;
}

std::vector<bool> FunctionCfg::exits(bool calls_exit) const {
  std::vector<bool> out;
  for (const BasicBlock& b : blocks) out.push_back(b.exits || (calls_exit && b.kind == BlockEnd::call));
  return out;
}

bool FunctionCfg::may_return() const {
  if (blocks.empty()) return true;
  std::vector<char> seen(blocks.size(), 0);
  std::vector<int> work{0};
  seen[0] = 1;
  while (!work.empty()) {
    const BasicBlock& b = blocks[size_t(work.back())];
    work.pop_back();
    if (b.exits && b.kind != BlockEnd::noreturn_call && b.kind != BlockEnd::halt) return true;
    for (int s : b.succ)
      if (!seen[size_t(s)]) {
        seen[size_t(s)] = 1;
        work.push_back(s);
      }
  }
  return false;
}

}  // namespace covkit::sample
