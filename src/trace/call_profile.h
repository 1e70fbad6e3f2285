#pragma once
// What a trace says about calls, independent of how it is shown: per
// function calls and inclusive/exclusive time, caller->callee edges, the call
// tree, and the deepest stack. Functions are identified by their demangled
// name (the same function in several processes or threads adds up).
// Inclusive time counts only the outermost activation of a recursive
// function, so it never exceeds the wall time of its thread.
// Frames of a thread's initial stack (a forked child starts inside its
// parent's calls) add time but no calls and no edges: those were counted in
// the parent's stream.
#include <cstdint>
#include <string>
#include <vector>

#include "format/trace_reader.h"
#include "trace/symbolizer.h"

namespace covkit::trace {

struct FunctionStats {
  std::string name;  // demangled
  std::string file;
  uint32_t line = 0;
  uint64_t calls = 0;
  uint64_t inclusive_ns = 0, exclusive_ns = 0;
  uint64_t min_ns = 0, max_ns = 0;  // of one call's inclusive time (0 when no call)
};

struct EdgeStats {
  std::string caller, callee;
  uint64_t calls = 0;
  uint64_t inclusive_ns = 0;  // time in callee when called from caller
};

struct CallTreeNode {
  std::string name;
  uint64_t calls = 0;
  uint64_t inclusive_ns = 0, exclusive_ns = 0;
  std::vector<CallTreeNode> children;  // in order of first call; below depth 1000 one "[deeper calls]" node
};

struct ThreadProfile {
  uint32_t pid = 0, tid = 0;
  std::string name;
  uint64_t wall_ns = 0;                 // first event to last (or to where frames left open close)
  uint64_t begin_ns = 0, end_ns = 0;    // the same, as times of the trace's clock
  std::vector<FunctionStats> functions;  // sorted by inclusive time, descending
  uint32_t max_depth = 0;
  std::vector<std::string> deepest_chain;  // outermost first
  CallTreeNode tree;                     // root: the thread itself (name = thread name)
};

struct CallProfile {
  std::vector<FunctionStats> functions;  // all threads, sorted by inclusive time, descending
  std::vector<EdgeStats> edges;          // sorted by caller, then callee
  uint32_t max_depth = 0;                // most instrumented frames live at once on one thread
  std::vector<std::string> deepest_chain;
  std::vector<ThreadProfile> threads;    // by pid, then tid
  size_t processes = 0;                  // process images with threads
  uint64_t lost_events = 0;
  uint64_t total_ns = 0;                 // sum of thread wall times
  uint64_t span_ns = 0;                  // what was traced: the first thread's begin to the last one's end
  std::vector<std::string> warnings;     // problems met reading the streams, one line each naming the file
};

// Reads each thread's stream once, a block at a time: memory grows with the
// functions, edges and call paths, not with the events. The streams of
// several threads are replayed on up to `threads` threads (0: one per core);
// the result does not depend on how many. Without `call_paths` the edges
// and the call trees (below their roots) are left empty, and a trace of
// fewer threads than `threads` has each stream read in parallel parts
// (split_profile.h) where it can: the flat profile, depths and times are
// the same.
CallProfile build_profile(const format::TraceSet& trace, Symbolizer& symbols, unsigned threads = 0,
                          bool call_paths = true);

}  // namespace covkit::trace
