#pragma once
// DOT text laid out and drawn by Graphviz in-process (libgvc/libcgraph, the
// "dot" layout engine), no `dot` program needed. Graphviz's messages are
// captured instead of going to stderr; its errors come back as one line.
// Calls are serialised (Graphviz keeps global state).
#include <string>
#include <string_view>

#include "util/expected.h"

namespace covkit::trace {

// `format` is a Graphviz output format: "svg", "png" (also "pdf", "dot"...,
// whatever the installed plugins render). An Error (one line) when the text
// does not parse, the layout fails or nothing renders it.
Expected<std::string> render_dot(std::string_view dot, const std::string& format);

}  // namespace covkit::trace
