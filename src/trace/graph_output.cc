#include "trace/graph_output.h"

#include "trace/dot_writer.h"
#include "trace/graph_json.h"
#include "trace/graph_render.h"

namespace covkit::trace {

Expected<std::string, GraphOutputError> draw_call_profile(const CallProfile& profile,
                                                          const GraphOutputOptions& options) {
  if (options.format == "callgrind") return write_callgrind(profile, options.callgrind);
  auto graph = build_call_graph(profile, options.graph);
  if (!graph) return GraphOutputError(graph.error(), false);
  if (options.format == "json") return call_graph_json(*graph);
  DotOptions dot;
  if (options.title) dot.title = options.title(*graph);
  std::string content = write_dot(*graph, dot);
  if (options.format == "dot") return content;
  auto image = render_dot(content, options.format);
  if (!image) return GraphOutputError(image.error(), true);
  return std::move(*image);
}

}  // namespace covkit::trace
