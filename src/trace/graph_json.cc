#include "trace/graph_json.h"

#include <nlohmann/json.hpp>

namespace covkit::trace {

std::string call_graph_json(const CallGraph& graph) {
  using Json = nlohmann::ordered_json;
  Json nodes = Json::array(), edges = Json::array();
  for (const GraphNode& n : graph.nodes) {
    Json node = {{"name", n.name}, {"calls", n.calls}, {"inclusive_ns", n.inclusive_ns},
                 {"exclusive_ns", n.exclusive_ns}};
    if (!n.file.empty()) node["file"] = n.file, node["line"] = n.line;
    if (n.focus) node["focus"] = true;
    nodes.push_back(std::move(node));
  }
  for (const GraphEdge& e : graph.edges)
    edges.push_back({{"caller", graph.nodes.at(e.caller).name}, {"callee", graph.nodes.at(e.callee).name},
                     {"calls", e.calls}, {"inclusive_ns", e.inclusive_ns}});
  Json j = {{"format", "covkit-call-graph"}, {"format_version", 1}, {"total_ns", graph.total_ns},
            {"nodes", std::move(nodes)}, {"edges", std::move(edges)},
            {"dropped_nodes", graph.dropped_nodes}, {"dropped_edges", graph.dropped_edges}};
  return j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

}  // namespace covkit::trace
