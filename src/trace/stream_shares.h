#pragma once
// Which of a trace's thread streams are read in parts on every core, one
// such stream after the other (split_profile.h, timeline_parts.h), and which
// are read beside each other, a core each: a stream larger than a core's
// share of all of them goes in parts (one thread on two cores; a program's
// busy thread beside idle ones, which a stream per core would leave on one).
#include <cstdint>
#include <vector>

#include "format/trace_reader.h"

namespace covkit::trace {

// By stream, in the order given: 1 to read in parts.
std::vector<uint8_t> streams_read_in_parts(const std::vector<const format::TraceThread*>& threads, unsigned cores);

}  // namespace covkit::trace
