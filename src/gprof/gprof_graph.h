#pragma once
// A gprof profile as the CallProfile that covkit's call-graph writers draw
// (dot_writer, graph_render, callgrind_writer): one function per gprof
// function that was called or sampled, times from the histogram (self) and
// gprof's propagation (self + children), one edge per caller->callee arc
// with the caller's share of the callee's time. Recursive calls count as
// calls but draw no edge.
#include "trace/call_profile.h"
#include "gprof/gprof_profile.h"

namespace covkit::trace {

CallProfile gprof_call_profile(const GprofProfile& profile);

}  // namespace covkit::trace
