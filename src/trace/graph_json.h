#pragma once
// A call graph as JSON (`covkit trace graph --json`, `covkit gprof --json`):
// the nodes and edges the drawing would show, with their counts and times,
// so scripts get the graph without parsing DOT.
#include <string>

#include "trace/call_graph_model.h"

namespace covkit::trace {

// Indented JSON, with a final newline (docs/covkit-trace.md, "graph").
std::string call_graph_json(const CallGraph& graph);

}  // namespace covkit::trace
