#include "sample/path_recovery.h"

#include <set>

namespace covkit::sample {

namespace {

// Execution may go from block b to the next block in address order
// without a taken branch.
bool falls_through(const BasicBlock& b, const BasicBlock& next) {
  return (b.kind == BlockEnd::fallthrough || b.kind == BlockEnd::cond_jump) && b.end == next.start;
}

class Collector {
 public:
  Collector(const std::vector<const ModuleCfg*>& modules, RecoveryStats* stats) : modules_(modules), stats_(stats) {}

  const ModuleCfg* module(const Located& a) const {
    return a.module >= 0 && size_t(a.module) < modules_.size() ? modules_[size_t(a.module)] : nullptr;
  }

  void add(const Located& a) {
    const ModuleCfg* m = module(a);
    std::optional<BlockRef> r = m ? m->locate(a.vaddr) : std::nullopt;
    if (r) blocks_.insert({a.module, *r});
    else unplaced();
  }

  void add_range(const Located& to, const Located& from) {
    if (stats_) ++stats_->ranges;
    const ModuleCfg* m = module(to);
    std::optional<std::vector<BlockRef>> range;
    if (m && to.module == from.module) range = straight_line_range(*m, to.vaddr, from.vaddr);
    if (!range) {
      if (stats_) ++stats_->ranges_dropped;
      return;
    }
    for (BlockRef r : *range) blocks_.insert({to.module, r});
  }

  void add_return_address(const Located& ret) {
    const ModuleCfg* m = module(ret);
    std::optional<BlockRef> r = m && ret.vaddr > 0 ? m->locate(ret.vaddr - 1) : std::nullopt;
    if (!r) return unplaced();
    const BasicBlock& b = m->block(*r);
    bool call = b.kind == BlockEnd::call || b.kind == BlockEnd::noreturn_call;
    if (call && b.end == ret.vaddr) blocks_.insert({ret.module, *r});
  }

  std::vector<ModuleBlock> result() const { return {blocks_.begin(), blocks_.end()}; }

 private:
  void unplaced() {
    if (stats_) ++stats_->unplaced;
  }

  const std::vector<const ModuleCfg*>& modules_;
  RecoveryStats* stats_;
  std::set<ModuleBlock> blocks_;
};

}  // namespace

std::optional<std::vector<BlockRef>> straight_line_range(const ModuleCfg& module, uint64_t to, uint64_t from) {
  if (from < to) return std::nullopt;
  std::optional<BlockRef> start = module.locate(to), stop = module.locate(from);
  if (!start || !stop || start->function != stop->function) return std::nullopt;
  const FunctionCfg& f = module.functions[size_t(start->function)];
  // Both ends must be instruction boundaries of the decoding, else the
  // addresses and the CFG disagree.
  if (f.insn_at(to) < 0 || f.insn_at(from) < 0) return std::nullopt;
  std::vector<BlockRef> out{*start};
  for (int b = start->block; b != stop->block; ++b) {
    if (!falls_through(f.blocks[size_t(b)], f.blocks[size_t(b) + 1])) return std::nullopt;
    out.push_back({start->function, b + 1});
  }
  return out;
}

std::vector<ModuleBlock> recover_blocks(const std::vector<const ModuleCfg*>& modules, const SampleEvidence& sample,
                                        RecoveryStats* stats) {
  Collector c(modules, stats);
  const auto& br = sample.branches;
  for (size_t i = 0; i < br.size(); ++i) {
    c.add(br[i].from);
    if (i + 1 < br.size()) c.add_range(br[i].to, br[i + 1].from);
  }
  if (!br.empty()) c.add(br.back().to);
  for (const Located& s : sample.steps) c.add(s);
  for (const Located& r : sample.stack) c.add_return_address(r);
  if (sample.ip) c.add(*sample.ip);
  return c.result();
}

}  // namespace covkit::sample
