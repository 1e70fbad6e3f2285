#pragma once
// The line above a drawn call graph: "prog: 12.3 ms in 3 threads of 2
// processes; focus: parse; 14 functions not shown".
#include <string>

#include "format/trace_reader.h"
#include "trace/call_graph_model.h"
#include "trace/call_profile.h"

namespace covkit::trace {

std::string graph_title(const format::TraceSet& trace, const CallProfile& profile, const CallGraph& graph,
                        const GraphOptions& options);

}  // namespace covkit::trace
