#pragma once
// The line `covkit trace record` prints after the program ends: processes,
// threads, events and calls, size on disk, bytes per call, lost events. The
// counts come from each stream's header (the runtime fills them in when a
// thread ends); only the streams of threads that never ended (killed, or
// still running at exit) are read to count them.
#include <cstdint>
#include <string>

namespace covkit::trace {

struct RecordingSummary {
  uint64_t processes = 0, threads = 0;
  uint64_t events = 0, calls = 0, lost = 0;
  uint64_t stream_bytes = 0;  // event bytes, headers not included
  uint64_t disk_bytes = 0;    // blocks used by the trace files
  uint64_t streams_read = 0;  // streams without header counts, read to count them
  uint64_t unwritten = 0;     // trace files created but never written: an empty .meta, a stream without header (a full disk?)
};

RecordingSummary summarize_recording(const std::string& dir);

// "1 process, 2 threads, 40 events (20 calls), 12.0 KiB on disk, 3.1 bytes
// per call; trace in DIR" (and the lost events, when there are).
std::string summary_line(const RecordingSummary& s, const std::string& dir);

}  // namespace covkit::trace
