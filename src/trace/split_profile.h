#pragma once
// The flat profile of ONE thread stream read in parallel parts: the stream
// is cut at its restart points (format/trace_stream_ranges.h), each part is
// replayed on its own core against an unknown stack of frames opened before
// it, and the parts are stitched in order (work proportional to the depth,
// not to the events). The numbers are those of the front to back replay of
// call_profile.cc: per function calls, inclusive time (outermost activation
// only), exclusive time, min/max of a call; the deepest stack; the wall time.
// With `call_paths`, the call tree and the edges too (split_call_paths.h).
//
// Function ids are the stream's: the caller names them. Recursion is judged
// by function, as the replay in order judges it: `key_of` gives the caller's
// function of an id's address (called in the order the ids are defined, the
// order of their first calls, with the counter of that call), and ids of one
// function (a static inline function's copies in several translation units)
// share its activations. A part replayed before all its ids were known
// treats the unknown ones as functions of their own; where one proves to
// share a function with another id, the parts replayed with that guess are
// replayed again. Without `key_of` every id is its own function. The call
// paths' nodes and edges name functions by these keys too.
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "format/trace_reader.h"
#include "format/trace_stream_decoder.h"
#include "trace/split_call_paths.h"

namespace covkit::trace {

struct SplitFunction {
  uint64_t calls = 0, incl = 0, excl = 0;
  uint64_t min = UINT64_MAX, max = 0;  // of a call's inclusive time (min: UINT64_MAX when no call)
  uint64_t first = 0;                  // counter of its first call (names are looked up at that time)
};

struct SplitProfile {
  std::vector<uint32_t> order;          // function ids in order of first call
  std::vector<SplitFunction> functions;  // by function id
  std::vector<uint64_t> address;        // by function id (its define)
  uint32_t max_depth = 0;
  std::vector<uint32_t> deepest;  // function ids, outermost first
  uint64_t begin = 0, end = 0;    // ns; end: where frames still open at the end close
  uint64_t last_event = 0;        // ns of the last enter or exit
  bool open_at_end = false;       // frames were still open after the last event
  uint64_t lost = 0;
  uint64_t first_time = 0;        // counter of the first enter or exit
  SplitPaths paths;               // with call_paths
};

// nullopt when the stream has to be replayed in order: no restart points
// (version 1, one chunk), or a part that is unusual (a stack event, a
// define that changes an id, damage...). Warnings of the last part (read
// by the StreamDecoder, like a front to back read) go to `warnings`.
// `process_end`: the process's end counter, if known (frames of a thread
// that outlived its stream close there).
using SplitKeyOf = std::function<uint32_t(uint64_t address, uint64_t counter)>;
std::optional<SplitProfile> split_profile(const format::StreamBytes& bytes, const format::StreamHeader& header,
                                          const std::string& file, const format::TraceClock& to_ns,
                                          std::optional<uint64_t> process_end, unsigned threads,
                                          std::vector<std::string>& warnings, bool call_paths = false,
                                          const SplitKeyOf& key_of = {});

}  // namespace covkit::trace
