#include "gprof/gprof_graph.h"

#include <algorithm>
#include <cmath>

#include "gprof/gprof_text.h"
#include "util/rounding.h"

namespace covkit::trace {

namespace {

uint64_t ticks_to_ns(double ticks, double hz) {
  if (hz <= 0 || !(ticks > 0)) return 0;
  return util::round_to_count(ticks / hz * 1e9);
}

}  // namespace

CallProfile gprof_call_profile(const GprofProfile& p) {
  CallProfile out;
  std::vector<std::string> names(p.nodes.size());
  for (size_t i = 0; i < p.function_count; ++i) {
    const GprofNode& n = p.nodes[i];
    if (n.ncalls == 0 && n.self_calls == 0 && n.time == 0) continue;
    names[i] = gprof_display_name(n.name);
    FunctionStats f;
    f.name = names[i];
    f.file = n.file;
    f.calls = n.ncalls + n.self_calls;
    f.exclusive_ns = ticks_to_ns(n.time, p.hz);
    // Without a call graph nothing propagates: inclusive is self.
    f.inclusive_ns = p.has_call_graph ? ticks_to_ns(n.time + n.child_time, p.hz) : f.exclusive_ns;
    f.inclusive_ns = std::max(f.inclusive_ns, f.exclusive_ns);
    out.functions.push_back(std::move(f));
  }
  std::stable_sort(out.functions.begin(), out.functions.end(),
                   [](const FunctionStats& a, const FunctionStats& b) { return a.inclusive_ns > b.inclusive_ns; });
  for (const GprofArc& a : p.arcs) {
    if (a.parent == a.child || names[a.parent].empty() || names[a.child].empty()) continue;
    EdgeStats e;
    e.caller = names[a.parent];
    e.callee = names[a.child];
    e.calls = a.count;
    // What gprof's call graph lists for the arc: the callee's (and its
    // callees') time spent for this caller.
    e.inclusive_ns = ticks_to_ns(a.time + a.child_time, p.hz);
    out.edges.push_back(std::move(e));
  }
  std::stable_sort(out.edges.begin(), out.edges.end(), [](const EdgeStats& a, const EdgeStats& b) {
    return a.caller != b.caller ? a.caller < b.caller : a.callee < b.callee;
  });
  out.total_ns = ticks_to_ns(p.total_time, p.hz);
  return out;
}

}  // namespace covkit::trace
