#pragma once
// A CallGraph as Graphviz DOT text, drawn the way gprof2dot draws profiles:
// one box per function labelled
//     name
//     inclusive %
//     (exclusive %)
//     calls×
// one arrow per caller->callee pair labelled with its call count, nodes and
// edges coloured by their share of the total time on gprof2dot's temperature
// colormap (dark blue = little, saturated red = all), edges thicker with it;
// focused functions (GraphNode::focus) get a thick black border.
// Labels are plain (not records, not HTML), so only '"', '\\' and entity-like
// '&' need escaping; C++ names ("operator<<", "vector<int>::operator[]")
// pass through as they are.
#include <string>
#include <string_view>

#include "trace/call_graph_model.h"

namespace covkit::trace {

struct DotOptions {
  std::string title;  // a label above the graph ("" for none)
};

std::string write_dot(const CallGraph& graph, const DotOptions& options = {});

// `s` as a quoted DOT string whose label text shows exactly `s`: '"' and
// '\\' escaped, "&name;" kept from being read as an entity, newlines as the
// \n line break, other control bytes and invalid UTF-8 as U+FFFD.
std::string dot_quote(std::string_view s);

// gprof2dot's temperature colormap: `weight` (0..1, clamped) from
// HSL(2/3, 0.8, 0.25) to HSL(0, 1, 0.5), as "#rrggbb".
std::string temperature_color(double weight);

}  // namespace covkit::trace
