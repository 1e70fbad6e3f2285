#include "model/llvm_gcov.h"

#include <fmt/format.h>

#include <algorithm>
#include <span>
#include <unordered_map>

#include "format/gcov_tags.h"
#include "util/llvm_demangle.h"

namespace covkit::model {

namespace {

constexpr int64_t kNoArc = -1;  // LlvmBlock scratch: not reached by the cycle search
constexpr int64_t kRoot = -2;   // the search's start

// A block of an object: the blocks of one line may come from several functions.
struct BlockRef {
  uint32_t fn = 0, block = 0;
  bool operator==(const BlockRef&) const = default;
};

// Arcs on the spanning tree get the count that balances each block they
// reach, depth first from every block not yet reached (llvm-cov's
// propagateCounts, without recursion so a hostile graph cannot exhaust the
// stack).
void propagate(LlvmFunction& f, uint32_t start) {
  struct Elem {
    uint32_t block;
    int64_t pred;  // the tree arc it was reached by (kNoArc for the start)
    bool in_dst;   // reached along that arc's direction
    size_t i = 0;
    uint64_t excess = 0;
  };
  std::vector<Elem> stack;
  stack.push_back({start, kNoArc, false});
  for (;;) {
    Elem& u = stack.back();
    const LlvmBlock& b = f.blocks[u.block];
    if (u.i == 0 && f.visited[u.block]) {
      stack.pop_back();
      if (stack.empty()) break;
      continue;
    }
    f.visited[u.block] = 1;
    if (u.i < b.pred.size()) {
      const uint32_t a = b.pred[u.i++];
      if (int64_t(a) != u.pred) {
        if (f.arcs[a].on_tree)
          stack.push_back({f.arcs[a].src, int64_t(a), false});
        else
          u.excess += f.arcs[a].count;
      }
    } else if (u.i < b.pred.size() + b.succ.size()) {
      const uint32_t a = b.succ[u.i++ - b.pred.size()];
      if (int64_t(a) != u.pred) {
        if (f.arcs[a].on_tree)
          stack.push_back({f.arcs[a].dst, int64_t(a), true});
        else
          u.excess -= f.arcs[a].count;
      }
    } else {
      uint64_t excess = u.excess;
      if (int64_t(excess) < 0) excess = -excess;
      if (u.pred != kNoArc) f.arcs[size_t(u.pred)].count = excess;
      const bool in_dst = u.in_dst;
      stack.pop_back();
      if (stack.empty()) break;
      stack.back().excess += in_dst ? -excess : excess;
    }
  }
}

// llvm-cov's readGCDA for one arc-counter record of `f`.
void add_arc_counters(LlvmFunction& f, const std::vector<int64_t>& counters) {
  for (size_t i = 0; i < f.measured.size(); ++i) {
    LlvmArc& arc = f.arcs[f.measured[i]];
    arc.count = i < counters.size() ? uint64_t(counters[i]) : 0;
    f.blocks[arc.src].count += arc.count;
  }
  if (f.blocks.size() < 2) return;
  // The exit block closes the circuit back to the entry, on the tree.
  const uint32_t a = uint32_t(f.arcs.size());
  f.arcs.push_back({LlvmFunction::kExitBlock, 0, true});
  f.blocks[LlvmFunction::kExitBlock].succ.push_back(a);
  f.blocks[0].pred.push_back(a);
  f.tree.push_back(a);
  f.visited.resize(f.blocks.size(), 0);
  for (uint32_t b = 0; b < f.blocks.size(); ++b) propagate(f, b);
  for (size_t i = f.tree.size() - 1; i; --i) {
    const LlvmArc& t = f.arcs[f.tree[i - 1]];
    f.blocks[t.src].count += t.count;
  }
}

LlvmBlock& block(LlvmObject& obj, BlockRef r) { return obj.functions[r.fn].blocks[r.block]; }

// One cycle through `start` among the traversable blocks, by depth-first
// search; its smallest remaining arc count is taken off every arc of it and
// returned (0 when there is none).
uint64_t augment_one_cycle(LlvmObject& obj, BlockRef start, std::vector<std::pair<BlockRef, size_t>>& stack) {
  stack.clear();
  stack.emplace_back(start, 0);
  block(obj, start).incoming = kRoot;
  for (;;) {
    auto [u, i] = stack.back();
    LlvmFunction& f = obj.functions[u.fn];
    LlvmBlock& ub = f.blocks[u.block];
    if (i == ub.succ.size()) {
      ub.traversable = false;
      stack.pop_back();
      if (stack.empty()) break;
      continue;
    }
    ++stack.back().second;
    const uint32_t a = ub.succ[i];
    LlvmArc& succ = f.arcs[a];
    LlvmBlock& dst = f.blocks[succ.dst];
    if (succ.cycle_count == 0 || !dst.traversable || succ.dst == u.block) continue;
    if (dst.incoming == kNoArc) {
      dst.incoming = a;
      stack.emplace_back(BlockRef{u.fn, succ.dst}, 0);
      continue;
    }
    uint64_t min_count = succ.cycle_count;
    for (uint32_t v = u.block; v != succ.dst;) {
      const LlvmArc& in = f.arcs[size_t(f.blocks[v].incoming)];
      min_count = std::min(min_count, in.cycle_count);
      v = in.src;
    }
    succ.cycle_count -= min_count;
    for (uint32_t v = u.block; v != succ.dst;) {
      LlvmArc& in = f.arcs[size_t(f.blocks[v].incoming)];
      in.cycle_count -= min_count;
      v = in.src;
    }
    return min_count;
  }
  return 0;
}

// The loops among a line's blocks: cycles found and cancelled until none is left.
uint64_t cycles_count(LlvmObject& obj, const std::vector<std::pair<uint32_t, uint32_t>>& blocks) {
  std::vector<std::pair<BlockRef, size_t>> stack;
  uint64_t count = 0;
  for (;;) {
    for (const auto& [fn, b] : blocks) {
      obj.functions[fn].blocks[b].traversable = true;
      obj.functions[fn].blocks[b].incoming = kNoArc;
    }
    uint64_t d = 0;
    for (const auto& [fn, b] : blocks) {
      const BlockRef r{fn, b};
      if (block(obj, r).traversable && (d = augment_one_cycle(obj, r, stack)) > 0) break;
    }
    if (d == 0) break;
    count += d;
  }
  return count;
}

}  // namespace

LlvmObject llvm_object_from_notes(const format::NotesFile& notes) {
  LlvmObject obj;
  std::unordered_map<std::string, uint32_t> source_index;
  for (const format::NotesFunction& nf : notes.functions) {
    LlvmFunction f;
    f.ident = nf.ident;
    f.lineno_checksum = nf.lineno_checksum;
    f.cfg_checksum = nf.cfg_checksum;
    f.name = nf.name;
    f.start_line = nf.start_line;
    auto [it, fresh] = source_index.try_emplace(nf.source, uint32_t(obj.sources.size()));
    if (fresh) obj.sources.push_back(nf.source);
    f.source = it->second;
    f.blocks.resize(nf.num_blocks.value_or(0));
    for (const format::NotesArcs& rec : nf.arcs)
      for (const format::NotesArc& na : nf.arcs_of(rec)) {
        const uint32_t a = uint32_t(f.arcs.size());
        const bool on_tree = (na.flags & format::kArcOnTree) != 0;
        f.arcs.push_back({rec.src, na.dst, on_tree, (na.flags & format::kArcFallthrough) != 0});
        f.blocks[rec.src].succ.push_back(a);
        f.blocks[na.dst].pred.push_back(a);
        (on_tree ? f.tree : f.measured).push_back(a);
      }
    // LLVM 14 reads a block's lines whatever file they name ("TODO Unhandled").
    for (const format::NotesLines& rec : nf.lines)
      for (const format::NotesLocation& loc : nf.locations_of(rec)) {
        const std::span<const uint32_t> lines = nf.lines_of(loc);
        f.blocks[rec.block].lines.insert(f.blocks[rec.block].lines.end(), lines.begin(), lines.end());
      }
    obj.functions.push_back(std::move(f));
  }
  return obj;
}

void llvm_add_counts(LlvmObject& obj, const format::NotesFile& notes, const format::DataFile& data) {
  const char* const invalid = "Invalid .gcda File!\n";
  if (data.version.raw != notes.version.raw) {
    obj.errors += "GCOV versions do not match.\n";
    obj.errors += invalid;
    return;
  }
  if (data.stamp != notes.stamp) {
    obj.errors += fmt::format("file checksums do not match: {} != {}\n", notes.stamp, data.stamp);
    obj.errors += invalid;
    return;
  }
  std::unordered_map<uint32_t, uint32_t> by_ident;  // the last function of each ident
  for (uint32_t i = 0; i < obj.functions.size(); ++i) by_ident[obj.functions[i].ident] = i;
  LlvmFunction* fn = nullptr;  // stays on the last one found when an ident is unknown, as in llvm-cov
  for (const format::DataRecord& rec : data.records) {
    if (rec.cut_short) break;  // llvm-cov stops at the damage (data.error), before the record
    switch (rec.kind) {
      case format::DataRecord::Kind::kSummary:
        if (rec.tag == format::kTagProgramSummary) {
          if (rec.length > 0) obj.runs = rec.runs;
          ++obj.programs;
        } else {
          obj.runs = rec.runs;
        }
        break;
      case format::DataRecord::Kind::kFunction: {
        if (rec.placeholder) break;
        if (!rec.has_ids) {
          obj.errors += invalid;
          return;
        }
        auto it = by_ident.find(rec.ident);
        if (it == by_ident.end()) break;
        fn = &obj.functions[it->second];
        if (rec.lineno_checksum != fn->lineno_checksum || rec.cfg_checksum != fn->cfg_checksum) {
          obj.errors += fmt::format("{}: checksum mismatch, ({}, {}) != ({}, {})\n", fn->name, rec.lineno_checksum,
                                    rec.cfg_checksum, fn->lineno_checksum, fn->cfg_checksum);
          obj.errors += invalid;
          return;
        }
        break;
      }
      case format::DataRecord::Kind::kCounters:
        if (rec.tag != format::kTagArcCounters || !fn) break;
        if (uint64_t(rec.length) != 2 * uint64_t(fn->measured.size())) {
          obj.errors += fmt::format("{}: GCOV_TAG_COUNTER_ARCS mismatch, got {}, expected {}\n", fn->name, rec.length,
                                    2 * fn->measured.size());
          obj.errors += invalid;
          return;
        }
        add_arc_counters(*fn, rec.counters);
        break;
      case format::DataRecord::Kind::kOther:
        break;
    }
  }
  if (data.error) obj.errors += invalid;
}

std::string llvm_function_name(const LlvmFunction& f, bool demangle) {
  if (!demangle || f.name.rfind("_Z", 0) != 0) return f.name;
  return util::llvm_demangle(f.name).value_or(f.name);
}

std::vector<LlvmSource> llvm_collect_functions(LlvmObject& obj, bool demangle,
                                               std::vector<LlvmSummary>* function_summaries) {
  std::vector<LlvmSource> sources(obj.sources.size());
  for (size_t s = 0; s < sources.size(); ++s) sources[s].filename = obj.sources[s];
  for (uint32_t fi = 0; fi < obj.functions.size(); ++fi) {
    const LlvmFunction& f = obj.functions[fi];
    LlvmSource& si = sources[f.source];
    if (f.start_line >= si.functions_at.size()) si.functions_at.resize(size_t(f.start_line) + 1);
    si.functions_at[f.start_line].push_back(fi);
    LlvmSummary summary{llvm_function_name(f, demangle)};
    for (uint32_t bi = 0; bi < f.blocks.size(); ++bi) {
      const LlvmBlock& b = f.blocks[bi];
      if (b.lines.empty()) continue;
      const uint32_t max_line = *std::max_element(b.lines.begin(), b.lines.end());
      if (max_line >= si.lines.size()) si.lines.resize(size_t(max_line) + 1);
      for (uint32_t ln : b.lines) {
        LlvmLine& line = si.lines[ln];
        if (!line.exists) ++summary.lines;
        if (line.count == 0 && b.count) ++summary.lines_exec;
        line.exists = true;
        line.count += b.count;
        line.blocks.emplace_back(fi, bi);
      }
    }
    if (function_summaries) function_summaries->push_back(std::move(summary));
  }
  return sources;
}

LlvmSummary llvm_collect_source(LlvmObject& obj, LlvmSource& src, const std::string& display_name, bool branches) {
  LlvmSummary summary{display_name};
  for (size_t ln = 0; ln < src.lines.size(); ++ln) {
    LlvmLine& line = src.lines[ln];
    uint64_t count = 0;
    for (const auto& [fi, bi] : line.blocks) {
      LlvmFunction& f = obj.functions[fi];
      const LlvmBlock& b = f.blocks[bi];
      if (bi == 0) {
        // The entry block counts by the arcs leaving it: the exit-to-entry
        // arc is wrong where the flow does not balance (fork, exit).
        for (uint32_t a : b.succ) count += f.arcs[a].count;
      } else {
        for (uint32_t a : b.pred)
          if (std::find(line.blocks.begin(), line.blocks.end(), std::make_pair(fi, f.arcs[a].src)) == line.blocks.end())
            count += f.arcs[a].count;
      }
      for (uint32_t a : b.succ) f.arcs[a].cycle_count = f.arcs[a].count;
    }
    count += cycles_count(obj, line.blocks);
    line.count = count;
    if (line.exists) {
      ++summary.lines;
      if (line.count) ++summary.lines_exec;
    }
    if (!branches) continue;
    for (const auto& [fi, bi] : line.blocks) {
      const LlvmFunction& f = obj.functions[fi];
      const LlvmBlock& b = f.blocks[bi];
      if (!b.branches_on(ln)) continue;
      summary.branches += b.succ.size();
      if (count) summary.branches_exec += b.succ.size();
      for (uint32_t a : b.succ)
        if (f.arcs[a].count) ++summary.branches_taken;
    }
  }
  return summary;
}

}  // namespace covkit::model
