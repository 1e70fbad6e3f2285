#include "sample/function_cfg.h"

#include <algorithm>
#include <array>
#include <map>
#include <set>
#include <string_view>
#include <unordered_map>
#include <unordered_set>

#include <fmt/format.h>

#include "sample/indirect_jumps.h"

namespace covkit::sample {

namespace {

// Rounds of "resolve the tables, follow their targets": a table found may
// reveal code holding another.
constexpr int kMaxTableRounds = 32;

bool ends_block(Flow f) { return f != Flow::plain; }

bool is_unconditional(Flow f) {
  return f == Flow::jump || f == Flow::indirect_jump || f == Flow::ret || f == Flow::halt || f == Flow::invalid;
}

std::string called_name(const BinaryImage& image, const DecodedInsn& in) {
  if (in.rip_slot) return image.got_slot_name(in.target);
  return image.callee_name(in.target);
}

// The code found so far: instructions of the linear sweep that control
// reaches (flags by sweep position: most are), and the few it reaches that
// the sweep decoded across (kept apart).
class Builder final : public CodeView {
 public:
  Builder(const BinaryImage& image, const FunctionSymbol& fn, std::span<const DecodedInsn> sweep,
          const CfgHints& hints, const NoreturnOracle& noreturn)
      : image_(image), fn_(fn), sweep_(sweep), hints_(hints), noreturn_(noreturn), reached_(sweep.size(), 0),
        noreturn_cache_(sweep.size(), -1) {}

  FunctionCfg build();

  const DecodedInsn* at(uint64_t a) const override {
    int i = sweep_index(a);
    if (i >= 0) return reached_[size_t(i)] ? &sweep_[size_t(i)] : nullptr;
    auto it = extra_.find(a);
    return it == extra_.end() ? nullptr : &it->second;
  }
  std::span<const uint64_t> predecessors(uint64_t a) const override {
    auto it = index_.find(a);
    if (it == index_.end()) return {};
    return preds_[it->second];
  }
  bool is_root(uint64_t a) const override { return roots_.count(a) != 0; }
  ReachingDef reaching_def(Reg r, uint64_t a) const override {
    auto it = index_.find(a);
    if (it == index_.end() || r < Reg::rax || r > Reg::r15) return {};
    uint32_t v = reach_in_[it->second][size_t(r)];
    switch (v) {
      case kNothing:
      case kSeveral: return {};
      case kOutside: return {Reaching::outside, 0};
      case kClobbered: return {Reaching::clobbered, 0};
      default: return {Reaching::one, order_[v - kFirstDef]};
    }
  }

 private:
  bool inside(uint64_t a) const { return a >= fn_.address && a - fn_.address < fn_.size; }
  // The position in the sweep of the valid instruction starting at a, or -1.
  int sweep_index(uint64_t a) const {
    auto it = std::lower_bound(sweep_.begin(), sweep_.end(), a,
                               [](const DecodedInsn& d, uint64_t x) { return d.address < x; });
    return it != sweep_.end() && it->address == a && it->flow != Flow::invalid ? int(it - sweep_.begin()) : -1;
  }
  bool reached(uint64_t a) const { return at(a) != nullptr; }
  bool noreturn_call(const DecodedInsn& d) const {
    if (d.flow != Flow::call && !(d.flow == Flow::indirect_call && d.rip_slot)) return false;
    int i = sweep_index(d.address);
    if (i >= 0 && noreturn_cache_[size_t(i)] >= 0) return noreturn_cache_[size_t(i)];
    bool out = noreturn_(d.rip_slot ? 0 : d.target, called_name(image_, d));
    if (i >= 0) noreturn_cache_[size_t(i)] = out;
    return out;
  }
  bool is_part(uint64_t a) const {
    const FunctionSymbol* f = image_.function_at(a);
    return f && f != &fn_ && f->name.starts_with(fn_.name) &&
           std::string_view(f->name).substr(fn_.name.size()).starts_with(".cold");
  }
  // Calls f(address) for every place control goes from `d` (inside the
  // function or not).
  template <typename F>
  void each_successor(const DecodedInsn& d, F&& f) const;
  // Marks what control reaches from `work` (each new instruction into
  // `added`); false with `why` where it meets bytes that are no
  // instruction, or an instruction overlapping one already reached.
  bool explore(std::vector<uint64_t> work, std::vector<uint64_t>& added, std::string* why);
  void forget(const std::vector<uint64_t>& added);  // undoes an explore
  // Predecessors, and for every instruction which one last wrote each
  // register (a forward dataflow over the code found so far).
  void link_predecessors();
  // Reads the tables of the indirect jumps not understood yet; the targets
  // that are new.
  std::vector<uint64_t> resolve_tables();
  std::vector<uint64_t> candidates() const;
  std::vector<const DecodedInsn*> in_order() const;
  FunctionCfg cut_blocks(const std::set<uint64_t>& candidate_starts);

  const BinaryImage& image_;
  const FunctionSymbol& fn_;
  std::span<const DecodedInsn> sweep_;
  const CfgHints& hints_;
  const NoreturnOracle& noreturn_;
  std::vector<char> reached_;                // per sweep position
  std::map<uint64_t, DecodedInsn> extra_;   // reached, not in the sweep
  mutable std::vector<signed char> noreturn_cache_;  // per sweep position: -1 not asked yet
  std::unordered_map<uint64_t, std::vector<uint64_t>> tables_;  // jump -> its targets
  std::set<uint64_t> roots_;
  // For the indirect-jump analysis: the instructions by address, their
  // predecessors, and the reaching writers: per instruction and register,
  // one of the constants below or kFirstDef + the writer's position.
  static constexpr uint32_t kNothing = 0, kOutside = 1, kClobbered = 2, kSeveral = 3, kFirstDef = 4;
  std::vector<uint64_t> order_;
  std::unordered_map<uint64_t, uint32_t> index_;
  std::vector<std::vector<uint64_t>> preds_;
  std::vector<std::array<uint32_t, kGprCount>> reach_in_;
};

template <typename F>
void Builder::each_successor(const DecodedInsn& d, F&& f) const {
  auto to_target = [&](uint64_t t) {
    f(t);
    if (!inside(t) && is_part(t))  // into a .cold part: control may come back at any of its returns
      for (uint64_t r : hints_.part_returns) f(r);
  };
  switch (d.flow) {
    case Flow::plain: f(d.next()); break;
    case Flow::cond_jump:
      to_target(d.target);
      f(d.next());
      break;
    case Flow::jump: to_target(d.target); break;
    case Flow::call:
    case Flow::indirect_call:
      if (!noreturn_call(d)) f(d.next());
      break;
    case Flow::indirect_jump:
      if (auto t = tables_.find(d.address); t != tables_.end())
        for (uint64_t target : t->second) to_target(target);
      break;
    case Flow::ret:
    case Flow::halt:
    case Flow::invalid: break;
  }
}

bool Builder::explore(std::vector<uint64_t> work, std::vector<uint64_t>& added, std::string* why) {
  // Whether [a, end) overlaps a reached instruction other than one at a.
  auto overlaps = [&](uint64_t a, uint64_t end, bool in_sweep) {
    auto e = extra_.lower_bound(a);
    if (e != extra_.end() && e->first < end && e->first != a) return true;
    if (e != extra_.begin() && std::prev(e)->second.next() > a) return true;
    if (in_sweep) return false;  // sweep instructions never overlap one another
    auto it = std::upper_bound(sweep_.begin(), sweep_.end(), a,
                               [](uint64_t x, const DecodedInsn& d) { return x < d.address; });
    if (it != sweep_.begin()) {  // the sweep instruction holding a
      auto prev = std::prev(it);
      if (reached_[size_t(prev - sweep_.begin())] && prev->next() > a) return true;
    }
    for (; it != sweep_.end() && it->address < end; ++it)
      if (reached_[size_t(it - sweep_.begin())]) return true;
    return false;
  };
  while (!work.empty()) {
    uint64_t a = work.back();
    work.pop_back();
    if (!inside(a) || reached(a)) continue;
    int i = sweep_index(a);
    const DecodedInsn* d = nullptr;
    std::optional<DecodedInsn> fresh;
    if (i >= 0) {
      d = &sweep_[size_t(i)];
    } else {
      auto bytes = image_.bytes_at(a, std::min<uint64_t>(15, fn_.address + fn_.size - a));
      if (!bytes.empty()) fresh = decode_instruction(a, bytes);
      if (fresh && fresh->flow != Flow::invalid) d = &*fresh;
    }
    if (!d) {
      if (why) *why = fmt::format("bytes at {:#x} are no instruction", a);
      return false;
    }
    if (d->next() > fn_.address + fn_.size || overlaps(a, d->next(), i >= 0)) {
      if (why) *why = fmt::format("the instruction at {:#x} overlaps another", a);
      return false;
    }
    if (i >= 0) reached_[size_t(i)] = 1;
    else d = &extra_.emplace(a, *fresh).first->second;
    added.push_back(a);
    each_successor(*d, [&](uint64_t s) { work.push_back(s); });
  }
  return true;
}

void Builder::forget(const std::vector<uint64_t>& added) {
  for (uint64_t a : added) {
    int i = sweep_index(a);
    if (i >= 0) reached_[size_t(i)] = 0;
    else extra_.erase(a);
  }
}

std::vector<const DecodedInsn*> Builder::in_order() const {
  std::vector<const DecodedInsn*> out;
  auto e = extra_.begin();
  for (size_t i = 0; i < sweep_.size(); ++i) {
    if (!reached_[i]) continue;
    for (; e != extra_.end() && e->first < sweep_[i].address; ++e) out.push_back(&e->second);
    out.push_back(&sweep_[i]);
  }
  for (; e != extra_.end(); ++e) out.push_back(&e->second);
  return out;
}

void Builder::link_predecessors() {
  std::vector<const DecodedInsn*> insns = in_order();
  const size_t n = insns.size();
  order_.clear();
  index_.clear();
  index_.reserve(n);
  for (const DecodedInsn* d : insns) {
    index_[d->address] = uint32_t(order_.size());
    order_.push_back(d->address);
  }
  preds_.assign(n, {});
  std::vector<std::vector<uint32_t>> succ(n);
  for (uint32_t i = 0; i < n; ++i)
    each_successor(*insns[i], [&](uint64_t s) {
      auto it = index_.find(s);
      if (it == index_.end()) return;
      auto& p = preds_[it->second];
      if (std::find(p.begin(), p.end(), insns[i]->address) != p.end()) return;
      p.push_back(insns[i]->address);
      succ[i].push_back(it->second);
    });

  reach_in_.assign(n, {});
  auto meet = [](uint32_t a, uint32_t b) { return a == kNothing ? b : b == kNothing || a == b ? a : kSeveral; };
  auto out_of = [&](uint32_t i) {
    std::array<uint32_t, kGprCount> o = reach_in_[i];
    const DecodedInsn& d = *insns[i];
    bool call = d.flow == Flow::call || d.flow == Flow::indirect_call;
    for (int r = 0; r < kGprCount; ++r) {
      if (d.writes & (1u << r)) o[size_t(r)] = kFirstDef + i;
      else if (call && (kCallClobbered & (1u << r))) o[size_t(r)] = kClobbered;
    }
    return o;
  };
  std::vector<uint32_t> work(n);
  std::vector<char> queued(n, 1);
  for (uint32_t i = 0; i < n; ++i) work[i] = uint32_t(n - 1 - i);  // popped from the back: ascending
  while (!work.empty()) {
    uint32_t i = work.back();
    work.pop_back();
    queued[i] = 0;
    std::array<uint32_t, kGprCount> in{};
    if (roots_.count(order_[i])) in.fill(kOutside);
    for (uint64_t p : preds_[i]) {
      std::array<uint32_t, kGprCount> o = out_of(index_.at(p));
      for (int r = 0; r < kGprCount; ++r) in[size_t(r)] = meet(in[size_t(r)], o[size_t(r)]);
    }
    if (in == reach_in_[i]) continue;
    reach_in_[i] = in;
    for (uint32_t s : succ[i])
      if (!queued[s]) {
        queued[s] = 1;
        work.push_back(s);
      }
  }
}

std::vector<uint64_t> Builder::resolve_tables() {
  std::vector<uint64_t> pending;
  for (const DecodedInsn* d : in_order())
    if (d->flow == Flow::indirect_jump && !d->rip_slot && !tables_.count(d->address)) pending.push_back(d->address);
  if (pending.empty()) return {};
  link_predecessors();
  TargetCheck valid = [&](uint64_t t) { return inside(t) ? sweep_index(t) >= 0 || reached(t) : is_part(t); };
  std::vector<uint64_t> fresh;
  for (uint64_t a : pending) {
    auto t = resolve_jump_table(image_, *this, a, valid);
    if (!t) continue;
    std::vector<uint64_t>& known = tables_[a];
    for (uint64_t target : t->targets)
      if (std::find(known.begin(), known.end(), target) == known.end()) {
        known.push_back(target);
        fresh.push_back(target);
      }
  }
  return fresh;
}

std::vector<uint64_t> Builder::candidates() const {
  std::vector<uint64_t> out;
  if (hints_.line_info) {
    for (uint64_t c : hints_.candidates)
      if (inside(c)) out.push_back(c);
    return out;
  }
  // No line rows: after every unconditional transfer, the first instruction
  // that is not padding.
  for (size_t i = 0; i + 1 < sweep_.size(); ++i) {
    if (!is_unconditional(sweep_[i].flow) && !(sweep_[i].flow == Flow::call && noreturn_call(sweep_[i]))) continue;
    size_t j = i + 1;
    while (j < sweep_.size() && (sweep_[j].nop || sweep_[j].flow == Flow::halt)) ++j;
    if (j < sweep_.size() && sweep_[j].flow != Flow::invalid) out.push_back(sweep_[j].address);
  }
  return out;
}

FunctionCfg Builder::build() {
  FunctionCfg cfg;
  cfg.name = fn_.name;
  cfg.address = fn_.address;
  cfg.size = fn_.size;

  // What control certainly reaches: a failure here is the function's.
  std::vector<uint64_t> work{fn_.address}, added;
  roots_.insert(fn_.address);
  for (uint64_t r : hints_.roots)
    if (inside(r)) {
      work.push_back(r);
      roots_.insert(r);
    }
  std::string why;
  bool ok = explore(work, added, &why);
  for (int round = 0; ok && round < kMaxTableRounds; ++round) {
    std::vector<uint64_t> fresh = resolve_tables();
    if (fresh.empty()) break;
    ok = explore(fresh, added, &why);
  }
  std::set<uint64_t> candidate_starts;
  if (ok) {
    // Where control may enter unseen: each candidate's code, when it
    // agrees with what is known, is followed; what only it reaches has a root.
    for (uint64_t c : candidates()) {
      if (reached(c)) {
        candidate_starts.insert(c);
        continue;
      }
      if (sweep_index(c) < 0) continue;
      std::vector<uint64_t> more;
      if (!explore({c}, more, nullptr)) {
        forget(more);
        continue;
      }
      roots_.insert(c);
      candidate_starts.insert(c);
    }
    // Code found so may hold tables too.
    for (int round = 0; round < kMaxTableRounds; ++round) {
      std::vector<uint64_t> fresh = resolve_tables(), more;
      if (fresh.empty()) break;
      if (!explore(fresh, more, nullptr)) {
        forget(more);
        break;
      }
    }
  }
  FunctionCfg out = cut_blocks(candidate_starts);
  if (!ok) {
    out.complete = false;
    out.problem = why;
  }
  return out;
}

FunctionCfg Builder::cut_blocks(const std::set<uint64_t>& candidate_starts) {
  FunctionCfg cfg;
  cfg.name = fn_.name;
  cfg.address = fn_.address;
  cfg.size = fn_.size;
  std::vector<const DecodedInsn*> insns = in_order();
  if (insns.empty()) return cfg;
  for (const DecodedInsn* d : insns)
    if (d->flow == Flow::indirect_jump && !d->rip_slot && !tables_.count(d->address)) cfg.unknown_jumps = true;

  std::unordered_set<uint64_t> leaders(roots_.begin(), roots_.end());
  for (const DecodedInsn* d : insns) {
    bool call = d->flow == Flow::call || d->flow == Flow::indirect_call;
    each_successor(*d, [&](uint64_t s) {
      if (!inside(s)) {
        if (!call && std::find(cfg.outside_targets.begin(), cfg.outside_targets.end(), s) == cfg.outside_targets.end())
          cfg.outside_targets.push_back(s);
        return;
      }
      if (s != d->next()) leaders.insert(s);
    });
    if (ends_block(d->flow)) leaders.insert(d->next());
  }
  if (cfg.unknown_jumps && hints_.line_info) leaders.insert(candidate_starts.begin(), candidate_starts.end());

  cfg.insns.reserve(insns.size());
  for (const DecodedInsn* d : insns) cfg.insns.push_back(*d);
  const auto& in = cfg.insns;
  for (size_t i = 0; i < in.size();) {
    BasicBlock b;
    b.start = in[i].address;
    b.first_insn = i;
    do {
      ++i;
    } while (i < in.size() && !ends_block(in[i - 1].flow) && in[i - 1].next() == in[i].address &&
             !leaders.count(in[i].address));
    b.insn_count = i - b.first_insn;
    b.end = in[i - 1].next();
    cfg.blocks.push_back(std::move(b));
  }

  for (size_t bi = 0; bi < cfg.blocks.size(); ++bi) {
    BasicBlock& b = cfg.blocks[bi];
    const DecodedInsn& last = in[b.first_insn + b.insn_count - 1];
    auto add = [&](uint64_t target) {
      if (!inside(target)) {
        b.exits = true;
        return;
      }
      int s = cfg.block_at(target);
      if (s >= 0 && cfg.blocks[size_t(s)].start == target &&
          std::find(b.succ.begin(), b.succ.end(), s) == b.succ.end())
        b.succ.push_back(s);
    };
    switch (last.flow) {
      case Flow::plain:
        b.kind = reached(last.next()) ? BlockEnd::fallthrough : BlockEnd::falls_off;
        if (b.kind == BlockEnd::falls_off) b.exits = true;
        else add(last.next());
        break;
      case Flow::cond_jump:
        b.kind = BlockEnd::cond_jump;
        each_successor(last, add);
        break;
      case Flow::jump:
        b.kind = inside(last.target) ? BlockEnd::jump : BlockEnd::tail_call;
        each_successor(last, add);
        break;
      case Flow::indirect_jump:
        if (tables_.count(last.address)) {
          b.kind = BlockEnd::jump_table;
          each_successor(last, add);
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
        b.callee_name = known_target ? called_name(image_, last) : std::string();
        if (noreturn_call(last)) {
          b.kind = BlockEnd::noreturn_call;
          b.exits = true;
        } else {
          b.kind = BlockEnd::call;
          if (reached(last.next())) add(last.next());
          else b.exits = true;  // the call is the symbol's last instruction
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
    if (cfg.unknown_jumps && (hints_.line_info ? candidate_starts.count(b.start) != 0 : true)) b.candidate = true;
  }
  for (uint64_t r : roots_)
    if (r != fn_.address)
      if (int b = cfg.block_at(r); b > 0 && cfg.blocks[size_t(b)].start == r) cfg.roots.push_back(b);
  std::sort(cfg.roots.begin(), cfg.roots.end());
  return cfg;
}

}  // namespace

FunctionCfg build_function_cfg(const BinaryImage& image, const FunctionSymbol& fn, std::span<const DecodedInsn> sweep,
                               const CfgHints& hints, const NoreturnOracle& noreturn) {
  return Builder(image, fn, sweep, hints, noreturn).build();
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
  if (blocks.empty()) return g;
  if (!roots.empty()) {
    g.entry = int(g.succ.size());
    std::vector<int> from_outside{0};
    from_outside.insert(from_outside.end(), roots.begin(), roots.end());
    g.succ.push_back(std::move(from_outside));
  }
  if (unknown_jumps) {
    int unknown = int(g.succ.size());
    std::vector<int> targets;
    for (size_t b = 0; b < blocks.size(); ++b) {
      if (blocks[b].kind == BlockEnd::unknown_jump) g.succ[b].push_back(unknown);
      if (blocks[b].candidate) targets.push_back(int(b));
    }
    g.succ.push_back(std::move(targets));
  }
  return g;
}

std::vector<bool> FunctionCfg::exits(bool calls_exit) const {
  std::vector<bool> out;
  for (const BasicBlock& b : blocks) out.push_back(b.exits || (calls_exit && b.kind == BlockEnd::call));
  if (blocks.empty()) return out;
  if (!roots.empty()) out.push_back(false);
  if (unknown_jumps) out.push_back(true);  // the jump may leave (a tail call through a pointer)
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
