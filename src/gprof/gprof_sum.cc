// gmon.sum (gprof_sum.h): little-endian, 64-bit addresses, as read.
#include "gprof/gprof_sum.h"

#include <map>
#include <utility>

namespace covkit::trace {

namespace {

template <typename T>
void put(std::string& out, T value) {
  for (size_t i = 0; i < sizeof(T); ++i) out += char(uint8_t(uint64_t(value) >> (8 * i)));
}

}  // namespace

std::string gprof_sum_file(const GprofProfile& profile, const std::vector<GprofSymbol>& symbols,
                           const std::vector<GprofInput>& inputs) {
  std::string out = "gmon";
  put<uint32_t>(out, 1);
  out.append(12, '\0');
  if (profile.has_histogram)
    for (const GprofSummedHistogram& h : profile.histograms) {
      out += char(0);
      put<uint64_t>(out, h.low_pc);
      put<uint64_t>(out, h.high_pc);
      put<uint32_t>(out, uint32_t(h.samples.size()));
      put<uint32_t>(out, uint32_t(profile.hz));
      std::string dimension = profile.dimension.substr(0, 15);
      dimension.resize(15, '\0');
      out += dimension;
      out += profile.dimension_abbrev;
      for (int s : h.samples) put<uint16_t>(out, uint16_t(s));
    }
  if (!profile.has_call_graph) return out;
  // cg_tally on the line symbols: the caller is the symbol of the call
  // site, the callee the function it lands in.
  std::vector<std::vector<std::pair<size_t, uint64_t>>> children(symbols.size());  // newest last
  std::map<std::pair<size_t, size_t>, size_t> position;
  for (const GprofInput& in : inputs)
    for (const format::GmonArc& a : in.data.arcs) {
      const long parent = gprof_symbol_at(symbols, a.from_pc);
      long child = gprof_symbol_at(symbols, a.self_pc);
      if (parent < 0 || child < 0) continue;
      while (child >= 0 && !symbols[size_t(child)].is_func) --child;
      if (child < 0) continue;
      auto& list = children[size_t(parent)];
      auto [it, added] = position.try_emplace({size_t(parent), size_t(child)}, list.size());
      if (added)
        list.push_back({size_t(child), a.count});
      else
        list[it->second].second += a.count;
    }
  for (size_t p = 0; p < symbols.size(); ++p)
    for (auto it = children[p].rbegin(); it != children[p].rend(); ++it) {
      out += char(1);
      put<uint64_t>(out, symbols[p].addr);
      put<uint64_t>(out, symbols[it->first].addr);
      put<uint32_t>(out, uint32_t(it->second));
    }
  return out;
}

}  // namespace covkit::trace
