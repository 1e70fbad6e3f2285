// gprof's analysis (gprof_profile.h), in gprof's order of operations; each
// step names the binutils function whose arithmetic it keeps.
#include "gprof/gprof_profile.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>
#include <utility>

#include <fmt/format.h>

#include "gprof/gprof_cycles.h"
#include "gprof/gprof_sort.h"

namespace covkit::trace {

namespace {

constexpr uint64_t kUnit = 2;  // gprof's UNIT: histogram addresses are in 2-byte units

// gprof's (bfd_vma) of a double, as its x86-64 build converts: exact below
// 2^63 (negative values wrap), 2^63 added back from 2^63 to 2^64, and
// 2^63 for a NaN, 0 at and beyond 2^64 (the machine's "indefinite" integer
// through each path). A histogram whose high pc is below its low pc has a
// scale near 2^63 units per bucket and one with no buckets an infinite (or
// NaN) scale: gprof reads both, and its bucket bounds are these numbers,
// which C++ leaves undefined.
uint64_t gprof_vma_of(double v) {
  constexpr double k2p63 = 9223372036854775808.0;
  constexpr uint64_t kIndefinite = uint64_t(1) << 63;
  auto truncate = [](double x) { return x >= -k2p63 && x < k2p63 ? uint64_t(int64_t(x)) : kIndefinite; };
  if (!(v >= k2p63)) return truncate(v);
  return truncate(v - k2p63) ^ kIndefinite;
}

struct Builder {
  const GprofSymbolTable& table;
  const GprofSelection& selection;
  GprofProfile p;
  std::map<std::pair<size_t, size_t>, size_t> arc_of;  // (parent, child) -> arc
  // The histogram records by range: an index into p.histograms by (low,
  // high), and the ranges holding addresses (low < high) by low: those are
  // disjoint, so a new one overlaps one of them only if it overlaps its
  // neighbours there. Only such ranges overlap (gprof's test, max of the
  // lows below min of the highs, is false for the others).
  std::map<std::pair<uint64_t, uint64_t>, size_t> by_range;
  std::map<uint64_t, uint64_t> by_low;  // low -> high
  size_t upside_down = 0;  // records whose high pc is below their low pc, with buckets

  bool overlaps_a_range(uint64_t low, uint64_t high) const {
    auto next = by_low.lower_bound(low);
    if (next != by_low.end() && next->first < high) return true;
    return next != by_low.begin() && std::prev(next)->second > low;
  }

  Builder(const GprofSymbolTable& t, const GprofSelection& s) : table(t), selection(s) {}

  // hist.c: read_histogram_header + hist_read_rec.
  Expected<void, GprofInputError> add_histogram(const std::string& path, const format::GmonHistogram& h) {
    // No buckets: an infinite scale (NaN for an empty range), a high pc
    // below the low pc: a wrapped range. gprof takes both; their samples,
    // if any, credit no function (assign_samples).
    const double scale = double((h.high_pc - h.low_pc) / kUnit) / double(h.buckets.size());
    if (p.histograms.empty()) {
      p.hz = h.prof_rate;
      if (h.prof_rate == 0) p.zero_rate_file = path;
      p.dimension = h.dimension;
      p.dimension_abbrev = h.dimension_abbrev;
      p.hist_scale = scale;
    } else {
      if (h.dimension != p.dimension)
        return GprofInputError(path, fmt::format("histogram dimension changed from '{}' to '{}'", p.dimension,
                                                 h.dimension));
      if (h.dimension_abbrev != p.dimension_abbrev)
        return GprofInputError(path, "histogram dimension abbreviation changed between histogram records");
      if (std::fabs(p.hist_scale - scale) > 0.000001)
        return GprofInputError(path, "different scales in histogram records");
    }
    // Found through the indexes (a search of every record before for
    // each made a file of n records cost n^2: 80,000 in 3.4 MB, 9 s).
    GprofSummedHistogram* target = nullptr;
    if (auto same = by_range.find({h.low_pc, h.high_pc}); same != by_range.end()) target = &p.histograms[same->second];
    if (!target) {
      if (h.low_pc < h.high_pc) {
        if (overlaps_a_range(h.low_pc, h.high_pc)) return GprofInputError(path, "overlapping histogram records");
        by_low[h.low_pc] = h.high_pc;
      } else if (h.high_pc < h.low_pc && !h.buckets.empty() && ++upside_down > 1) {
        // Such a range overlaps no other (gprof's test), and its buckets,
        // near 2^63 units each, can each cover every function: records of
        // them cost records x functions. A real gmon.out has none.
        return GprofInputError(path, "a second histogram record whose high pc is below its low pc");
      }
      by_range.emplace(std::pair{h.low_pc, h.high_pc}, p.histograms.size());
      p.histograms.push_back({h.low_pc, h.high_pc, std::vector<int>(h.buckets.size(), 0)});
      target = &p.histograms.back();
    }
    // Same range and scale: same bucket count.
    const size_t n = std::min(target->samples.size(), h.buckets.size());
    for (size_t i = 0; i < n; ++i) target->samples[i] += h.buckets[i];
    p.has_histogram = true;
    return {};
  }

  // call_graph.c: cg_tally + cg_arcs.c: arc_add.
  void add_arc(const format::GmonArc& a) {
    const auto& syms = table.symbols;
    long parent = gprof_symbol_at(syms, a.from_pc);
    long child = gprof_symbol_at(syms, a.self_pc);
    p.has_call_graph = true;
    if (parent < 0 || child < 0) return;
    while (child >= 0 && !syms[child].is_func) --child;
    if (child < 0) return;
    if (!selection.arc_kept(syms[parent], syms[child])) return;
    p.nodes[child].ncalls += a.count;
    auto [it, added] = arc_of.try_emplace({size_t(parent), size_t(child)}, p.arcs.size());
    if (!added) {
      p.arcs[it->second].count += a.count;
      return;
    }
    p.arcs.push_back({size_t(parent), size_t(child), a.count, 0, 0});
    p.nodes[parent].children.push_back(it->second);
    p.nodes[child].parents.push_back(it->second);
  }

  // hist.c: scale_and_align_entries + hist_assign_samples_1.
  void assign_samples() {
    const size_t len = table.symbols.size();
    std::vector<uint64_t> scaled(len);
    for (size_t j = 0; j < len; ++j) scaled[j] = table.symbols[j].addr / kUnit;
    for (const GprofSummedHistogram& r : p.histograms) {
      const uint64_t lowpc = r.low_pc / kUnit;
      size_t k = 1;
      for (size_t i = 0; i < r.samples.size(); ++i) {
        const unsigned bin_count = unsigned(r.samples[i]);
        if (!bin_count) continue;
        const uint64_t bin_low = lowpc + gprof_vma_of(p.hist_scale * double(i));
        const uint64_t bin_high = lowpc + gprof_vma_of(p.hist_scale * double(i + 1));
        const double count_time = bin_count;
        p.total_time += count_time;
        // gprof walks from the table's start for each record: the symbols
        // it would pass over (each ending at or below the bin, none
        // starting past it) are found by search instead, so that records
        // x symbols is not the cost of a file of many records.
        size_t j = k - 1;
        if (len) {
          const size_t ends_past = size_t(std::upper_bound(scaled.begin() + 1, scaled.end(), bin_low) - scaled.begin()) - 1;
          const size_t starts_past = size_t(std::upper_bound(scaled.begin(), scaled.end(), bin_high) - scaled.begin());
          if (const size_t skip_to = std::min(ends_past, starts_past); skip_to > j) j = k = skip_to;
        }
        for (; j < len; k = ++j) {
          const uint64_t sym_low = scaled[j];
          // gprof reads one entry past its table for the last symbol; what
          // it finds there is stale (zero): that symbol gets nothing.
          const uint64_t sym_high = j + 1 < len ? scaled[j + 1] : 0;
          if (bin_high < sym_low) break;
          if (bin_low >= sym_high) continue;
          const uint64_t overlap = std::min(bin_high, sym_high) - std::max(bin_low, sym_low);
          if (overlap > 0) {
            const double credit = double(overlap) * count_time / p.hist_scale;
            if (p.nodes[j].flat_selected)
              p.nodes[j].time += credit;
            else
              p.total_time -= credit;
          }
        }
      }
    }
  }

  // cg_arcs.c: inherit_flags.
  void inherit_flags(size_t child) {
    GprofNode& c = p.nodes[child];
    if (c.cycle_head == child) {
      c.print_flag = false;
      c.prop_fract = 0.0;
      for (size_t a : c.parents) {
        const GprofArc& arc = p.arcs[a];
        if (arc.parent == child) continue;
        c.print_flag |= p.nodes[arc.parent].print_flag;
        if (c.ncalls != 0)
          c.prop_fract += p.nodes[arc.parent].prop_fract * (double(arc.count) / double(c.ncalls));
      }
      return;
    }
    const size_t head = c.cycle_head;
    GprofNode& h = p.nodes[head];
    h.print_flag = false;
    h.prop_fract = 0.0;
    for (size_t m : h.members)
      for (size_t a : p.nodes[m].parents) {
        const GprofArc& arc = p.arcs[a];
        if (p.nodes[arc.parent].cycle_head == head) continue;
        h.print_flag |= p.nodes[arc.parent].print_flag;
        if (h.ncalls != 0) h.prop_fract += p.nodes[arc.parent].prop_fract * (double(arc.count) / double(h.ncalls));
      }
    for (size_t m : h.members) {
      p.nodes[m].print_flag = h.print_flag;
      p.nodes[m].prop_fract = h.prop_fract;
    }
  }

  // cg_arcs.c: propagate_time.
  void propagate_time(size_t parent) {
    GprofNode& par = p.nodes[parent];
    if (par.prop_fract == 0.0) return;
    for (size_t a : par.children) {
      GprofArc& arc = p.arcs[a];
      size_t child = arc.child;
      if (arc.count == 0 || child == parent || p.nodes[child].prop_fract == 0) continue;
      if (p.nodes[child].cycle_head != child) {
        if (par.cycle == p.nodes[child].cycle) continue;
        child = p.nodes[child].cycle_head;
      } else if (par.top_order <= p.nodes[child].top_order) {
        continue;  // gprof: "toporder botches"
      }
      const GprofNode& ch = p.nodes[child];
      if (ch.ncalls == 0) continue;
      arc.time = ch.time * (double(arc.count) / double(ch.ncalls));
      arc.child_time = ch.child_time * (double(arc.count) / double(ch.ncalls));
      const double share = arc.time + arc.child_time;
      par.child_time += share;
      const double prop_share = par.prop_fract * share;
      par.prop_child += prop_share;
      arc.time *= par.prop_fract;
      arc.child_time *= par.prop_fract;
      if (par.cycle_head != parent) {
        p.nodes[par.cycle_head].child_time += share;
        p.nodes[par.cycle_head].prop_child += prop_share;
      }
    }
  }

  // cg_arcs.c: cg_assemble.
  void assemble() {
    const size_t n = p.function_count;
    // Lists are kept newest first, as gprof prepends.
    for (GprofNode& node : p.nodes) {
      std::reverse(node.children.begin(), node.children.end());
      std::reverse(node.parents.begin(), node.parents.end());
    }
    for (size_t s = 0; s < n; ++s) {
      GprofNode& node = p.nodes[s];
      node.child_time = 0.0;
      auto self = arc_of.find({s, s});
      if (self != arc_of.end()) {
        node.ncalls -= p.arcs[self->second].count;
        node.self_calls = p.arcs[self->second].count;
      }
      node.cycle_head = s;
    }
    std::vector<std::vector<size_t>> children(n);
    for (size_t s = 0; s < n; ++s)
      for (size_t a : p.nodes[s].children) children[s].push_back(p.arcs[a].child);
    CycleNumbering numbering = number_cycles(children);
    for (size_t s = 0; s < n; ++s) p.nodes[s].top_order = numbering.top_order[s];
    // cycle_link: one node per cycle, calls into it and among its members.
    for (size_t c = 0; c < numbering.members.size(); ++c) {
      const int num = int(c + 1);
      GprofNode cyc;
      cyc.is_cycle = true;
      cyc.print_flag = true;
      cyc.cycle = num;
      cyc.cycle_head = p.nodes.size();
      cyc.members = numbering.members[c];
      for (size_t m : cyc.members) {
        p.nodes[m].cycle = num;
        p.nodes[m].cycle_head = cyc.cycle_head;
      }
      for (size_t m : cyc.members)
        for (size_t a : p.nodes[m].parents) {
          const GprofArc& arc = p.arcs[a];
          if (arc.parent == m) continue;
          if (p.nodes[arc.parent].cycle == num)
            cyc.self_calls += arc.count;
          else
            cyc.ncalls += arc.count;
        }
      p.nodes.push_back(std::move(cyc));
    }
    std::vector<size_t> top_sorted(n);
    for (size_t s = 0; s < n; ++s) top_sorted[s] = s;
    glibc_merge_sort(top_sorted, [&](size_t l, size_t r) { return p.nodes[l].top_order - p.nodes[r].top_order; });

    // propagate_flags: from the top callers down, each function inherits
    // printing and passing time on from its callers, unless the tables say
    // otherwise (an INCL table wins over its EXCL table).
    using T = GprofTable;
    size_t old_head = SIZE_MAX;
    for (size_t i = n; i-- > 0;) {
      const size_t child = top_sorted[i];
      if (p.nodes[child].cycle_head != old_head) {
        old_head = p.nodes[child].cycle_head;
        inherit_flags(child);
      }
      GprofNode& c = p.nodes[child];
      if (!c.print_flag) {
        c.print_flag = selection.holds(T::kInclGraph, c.addr) ||
                       (selection.empty(T::kInclGraph) && !selection.holds(T::kExclGraph, c.addr));
      } else if (!selection.holds(T::kInclGraph, c.addr) && selection.holds(T::kExclGraph, c.addr)) {
        c.print_flag = false;
      }
      if (c.prop_fract == 0.0) {
        if (selection.holds(T::kInclTime, c.addr) ||
            (selection.empty(T::kInclTime) && !selection.holds(T::kExclTime, c.addr)))
          c.prop_fract = 1.0;
      } else if (!selection.holds(T::kInclTime, c.addr) && selection.holds(T::kExclTime, c.addr)) {
        c.prop_fract = 0.0;
      }
      c.prop_self = c.time * c.prop_fract;
      p.print_time += c.prop_self;
    }
    // cycle_time
    for (size_t c = n; c < p.nodes.size(); ++c) {
      GprofNode& cyc = p.nodes[c];
      for (size_t m : cyc.members)
        if (p.nodes[m].prop_fract != 0.0) cyc.time += p.nodes[m].time;
      cyc.prop_self = cyc.prop_fract * cyc.time;
    }
    for (size_t s : top_sorted) propagate_time(s);

    // cmp_total: by total propagated time, then cycles first, names without
    // a leading '_' first, more calls first, then by name.
    p.by_total.resize(p.nodes.size());
    for (size_t i = 0; i < p.nodes.size(); ++i) p.by_total[i] = i;
    glibc_merge_sort(p.by_total, [&](size_t li, size_t ri) {
      const GprofNode& l = p.nodes[li];
      const GprofNode& r = p.nodes[ri];
      const double diff = (l.prop_self + l.prop_child) - (r.prop_self + r.prop_child);
      if (diff < 0.0) return 1;
      if (diff > 0.0) return -1;
      if (l.is_cycle) return -1;
      if (r.is_cycle) return 1;
      if (l.name[0] != '_' && r.name[0] == '_') return -1;
      if (l.name[0] == '_' && r.name[0] != '_') return 1;
      if (l.ncalls > r.ncalls) return -1;
      if (l.ncalls < r.ncalls) return 1;
      return std::strcmp(l.name.c_str(), r.name.c_str());
    });
    for (size_t i = 0; i < p.by_total.size(); ++i) p.nodes[p.by_total[i]].index = int(i + 1);
  }
};

}  // namespace

Expected<GprofProfile, GprofInputError> build_gprof_profile(const GprofSymbolTable& symbols,
                                                            const std::vector<GprofInput>& inputs) {
  return build_gprof_profile(symbols, inputs, GprofSelection(symbols));
}

Expected<GprofProfile, GprofInputError> build_gprof_profile(const GprofSymbolTable& symbols,
                                                            const std::vector<GprofInput>& inputs,
                                                            const GprofSelection& selection) {
  Builder b(symbols, selection);
  b.p.function_count = symbols.symbols.size();
  b.p.nodes.reserve(symbols.symbols.size());
  for (const GprofSymbol& s : symbols.symbols) {
    GprofNode node;
    node.name = s.name;
    node.file = s.file;
    node.addr = s.addr;
    node.is_static = s.is_static;
    node.is_func = s.is_func;
    node.flat_selected = selection.flat(s.addr);
    b.p.nodes.push_back(std::move(node));
  }
  for (const GprofInput& in : inputs) {
    for (const format::GmonHistogram& h : in.data.histograms)
      if (auto ok = b.add_histogram(in.path, h); !ok) return ok.error();
    for (const format::GmonArc& a : in.data.arcs) b.add_arc(a);
    b.p.block_counts.insert(b.p.block_counts.end(), in.data.block_counts.begin(), in.data.block_counts.end());
  }
  if (b.p.has_histogram) b.assign_samples();
  if (b.p.has_call_graph) b.assemble();
  return std::move(b.p);
}

}  // namespace covkit::trace
