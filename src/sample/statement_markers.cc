#include "sample/statement_markers.h"

#include <dwarf.h>

#include <algorithm>
#include <set>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace covkit::sample {

namespace {

// A function or inlined instance: its address ranges and its nesting depth.
struct Scope {
  std::vector<std::pair<uint64_t, uint64_t>> ranges;
  int depth = 0;
};

void read_scopes(Dwarf_Die* parent, int depth, std::vector<Scope>& out) {
  Dwarf_Die child;
  if (depth > 64 || dwarf_child(parent, &child) != 0) return;
  do {
    const int tag = dwarf_tag(&child);
    if (tag == DW_TAG_subprogram || tag == DW_TAG_inlined_subroutine) {
      Scope s;
      s.depth = depth;
      Dwarf_Addr base = 0, lo = 0, hi = 0;
      for (ptrdiff_t off = 0; (off = dwarf_ranges(&child, off, &base, &lo, &hi)) > 0;)
        if (hi > lo) s.ranges.emplace_back(lo, hi);
      if (!s.ranges.empty()) out.push_back(std::move(s));
    }
    if (dwarf_haschildren(&child)) read_scopes(&child, depth + 1, out);
  } while (dwarf_siblingof(&child, &child) == 0);
}

// The innermost scope holding each address of `points` (sorted), by a
// sweep over the scopes' ranges: -1 where none does.
std::vector<int> innermost_scopes(const std::vector<Scope>& scopes, const std::vector<uint64_t>& points) {
  struct Edge {
    uint64_t at;
    bool open;
    int scope;
  };
  std::vector<Edge> edges;
  for (size_t s = 0; s < scopes.size(); ++s)
    for (auto [lo, hi] : scopes[s].ranges) {
      edges.push_back({lo, true, int(s)});
      edges.push_back({hi, false, int(s)});
    }
  // At one address, ranges that end there close before those that open.
  std::sort(edges.begin(), edges.end(),
            [](const Edge& a, const Edge& b) { return a.at != b.at ? a.at < b.at : a.open < b.open; });
  std::multiset<std::pair<int, int>> open;  // (depth, scope)
  std::vector<int> out(points.size(), -1);
  size_t e = 0;
  for (size_t p = 0; p < points.size(); ++p) {
    for (; e < edges.size() && edges[e].at <= points[p]; ++e) {
      const std::pair<int, int> key{scopes[edges[e].scope].depth, edges[e].scope};
      if (edges[e].open) open.insert(key);
      else if (auto it = open.find(key); it != open.end()) open.erase(it);
    }
    if (!open.empty()) out[p] = open.rbegin()->second;
  }
  return out;
}

uint64_t line_key(uint32_t file, uint32_t line) { return uint64_t(file) << 32 | line; }

}  // namespace

void resolve_statement_markers(Dwarf_Die* cu, std::span<LineRange> rows, std::span<const size_t> markers,
                               const std::map<uint64_t, DeclLine>& entries) {
  if (markers.empty()) return;
  std::vector<Scope> scopes;
  read_scopes(cu, 0, scopes);
  // The rows with code, by address, to find those inside a scope.
  std::vector<const LineRange*> code;
  for (const LineRange& r : rows)
    if (r.covers) code.push_back(&r);
  std::sort(code.begin(), code.end(), [](const LineRange* a, const LineRange* b) { return a->lo < b->lo; });
  std::vector<size_t> order(markers.begin(), markers.end());
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return rows[a].lo < rows[b].lo; });
  std::vector<uint64_t> points;
  for (size_t m : order) points.push_back(rows[m].lo);
  const std::vector<int> inner = innermost_scopes(scopes, points);
  std::unordered_map<int, std::unordered_set<uint64_t>> lines_of;  // scope -> its lines with code
  for (size_t i = 0; i < order.size(); ++i) {
    LineRange& r = rows[order[i]];
    if (entries.count(r.lo) || inner[i] < 0) {
      r.covers = true;
      continue;
    }
    auto [it, fresh] = lines_of.try_emplace(inner[i]);
    if (fresh) {
      for (auto [lo, hi] : scopes[inner[i]].ranges) {
        auto c = std::lower_bound(code.begin(), code.end(), lo, [](const LineRange* x, uint64_t a) { return x->lo < a; });
        for (; c != code.end() && (*c)->lo < hi; ++c) it->second.insert(line_key((*c)->file, (*c)->line));
      }
    }
    r.covers = !it->second.count(line_key(r.file, r.line));
  }
}

}  // namespace covkit::sample
