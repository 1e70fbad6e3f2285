#pragma once
// The timeline's calls of ONE thread stream read in parallel parts, as the
// profile's are (split_profile.h): the stream is cut at its restart points
// (format/trace_stream_ranges.h), each part is replayed on a core of its
// own against the frames opened before it, unknown, and offers the calls
// that end in it at once; the parts' open frames and their exits of earlier
// frames are stitched in order (work proportional to the depth, not to the
// events). The calls, their times and their order are those of the front
// to back replay of timeline_writer.cc, so the file written is the same.
//
// Orders: a part numbers its calls from its own base (part << 22), which
// sorts them as the front to back numbering does; the caller gives the
// thread's bits (thread_index << 40).
#include <cstdint>
#include <string>
#include <vector>

#include "format/trace_reader.h"
#include "trace/timeline_selection.h"

namespace covkit::trace {

struct TimelineStream {
  const format::TraceProcess* process = nullptr;
  const format::TraceThread* thread = nullptr;  // with a stream file
  uint64_t origin = 0;                          // ns of the timeline's zero
  uint64_t order_base = 0;                      // the thread's bits of the orders
};

// Offers the stream's calls to `to` and returns true; false (nothing
// offered) when it has to be replayed front to back: no restart points
// (version 1, one chunk), a part that is unusual (a stack event, a define
// that changes an id, damage, more calls than the orders' bits), a clock
// that could go backwards. Warnings of the stream's tail (read by the
// StreamDecoder, as a front to back read would) go to `warnings`.
bool timeline_parts(const TimelineStream& stream, unsigned threads, Selection& to, std::vector<std::string>& warnings);

}  // namespace covkit::trace
