#pragma once
// A call profile drawn in one of the formats covkit writes: a Callgrind
// profile, DOT text, or DOT laid out and rendered by Graphviz (svg, png).
// `covkit trace graph` and `covkit gprof --format` both end here.
#include <functional>
#include <string>

#include "trace/call_graph_model.h"
#include "trace/call_profile.h"
#include "trace/callgrind_writer.h"
#include "util/expected.h"

namespace covkit::trace {

struct GraphOutputOptions {
  std::string format = "dot";  // callgrind, dot, svg, png, json (graph_json.h)
  GraphOptions graph;          // which nodes and edges (not for callgrind)
  CallgrindOptions callgrind;
  // The label above a drawn graph, from the graph kept ("" for none).
  std::function<std::string(const CallGraph&)> title;
};

// Which stage failed: each command names a different path for each (the
// input when no graph could be built, the output when it could not be drawn).
struct GraphOutputError : Error {
  bool rendering = false;
  GraphOutputError(Error e, bool in_rendering) : Error(std::move(e)), rendering(in_rendering) {}
};

Expected<std::string, GraphOutputError> draw_call_profile(const CallProfile& profile,
                                                          const GraphOutputOptions& options);

}  // namespace covkit::trace
