#pragma once
// The binary half of a trace directory: one `<pid>-<tid>.ckt` thread stream
// (docs/trace-format.md, "Thread stream") decoded into nested enter/exit
// events with absolute counters and function addresses. Every read is
// bounds-checked; what cannot be decoded ends the stream with a warning that
// names the file and the byte offset, and what was decoded before stays.
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "format/trace_reader.h"

namespace covkit::format {

inline constexpr size_t kTraceHeaderSize = 64;
inline constexpr char kTraceMagic[8] = {'C', 'K', 'T', 'R', 'A', 'C', 'E', '1'};

enum class StreamStatus {
  kOk,        // a stream (possibly damaged: see the warnings)
  kNoHeader,  // empty or an all-zero header: the thread's file was just created
  kNotStream  // wrong magic or a short header (a warning says which)
};

struct StreamHeader {
  uint32_t pid = 0, tid = 0;
};

// Decodes `bytes` into `thread` (tid, start, initial_stack, events, lost,
// ended, truncated, bytes); `header` receives the pid and tid of the header.
StreamStatus decode_trace_stream(std::span<const uint8_t> bytes, const std::string& file, TraceThread& thread,
                                 StreamHeader& header, std::vector<std::string>& warnings);

// Counts what decode_trace_stream would return without keeping the events
// (for summaries of large traces): false when `bytes` hold no stream.
struct StreamCounts {
  uint64_t events = 0, enters = 0;
  uint64_t bytes = 0;  // header and decoded events
};
bool count_trace_stream(std::span<const uint8_t> bytes, StreamCounts& counts);

}  // namespace covkit::format
