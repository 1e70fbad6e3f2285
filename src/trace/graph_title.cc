#include "trace/graph_title.h"

#include <fmt/format.h>

#include <filesystem>
#include <set>

namespace covkit::trace {

namespace {

// Three significant figures and a unit.
std::string human_time(uint64_t ns) {
  if (ns < 1000) return fmt::format("{} ns", ns);
  if (ns < 1000000) return fmt::format("{:.3g} µs", double(ns) / 1e3);
  if (ns < 1000000000) return fmt::format("{:.3g} ms", double(ns) / 1e6);
  return fmt::format("{:.4g} s", double(ns) / 1e9);
}

}  // namespace

std::string graph_title(const format::TraceSet& trace, const CallProfile& profile, const CallGraph& graph,
                        const GraphOptions& options) {
  std::set<std::string> programs;
  for (const format::TraceProcess& p : trace.processes)
    programs.insert(std::filesystem::path(p.exe).filename().string());
  std::string names;
  for (const std::string& n : programs) names += (names.empty() ? "" : ", ") + (n.empty() ? "?" : n);
  std::string title = fmt::format("{}: {} in {} thread{}", names, human_time(profile.total_ns), profile.threads.size(),
                                  profile.threads.size() == 1 ? "" : "s");
  if (trace.processes.size() > 1) title += fmt::format(" of {} processes", trace.processes.size());
  if (!options.focus.empty()) title += fmt::format("; focus: {}", options.focus);
  if (graph.dropped_nodes > 0)
    title += fmt::format("; {} function{} not shown", graph.dropped_nodes, graph.dropped_nodes == 1 ? "" : "s");
  return title;
}

}  // namespace covkit::trace
