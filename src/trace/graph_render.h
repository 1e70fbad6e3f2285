#pragma once
// DOT text laid out and drawn by Graphviz in-process (libgvc/libcgraph, the
// "dot" layout engine), no `dot` program needed. Graphviz's messages are
// captured instead of going to stderr; its errors come back as one line.
// Calls are serialised (Graphviz keeps global state).
#include <optional>
#include <string>
#include <string_view>

namespace covkit::trace {

// `format` is a Graphviz output format: "svg", "png" (also "pdf", "dot"...,
// whatever the installed plugins render). nullopt and a one-line `error`
// when the text does not parse, the layout fails or nothing renders it.
std::optional<std::string> render_dot(std::string_view dot, const std::string& format, std::string* error = nullptr);

}  // namespace covkit::trace
