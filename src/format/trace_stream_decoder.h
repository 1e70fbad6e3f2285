#pragma once
// The binary half of a trace directory: one `IMAGE-<tid>.ckt` thread stream
// (docs/trace-format.md, "Thread stream") decoded into nested enter/exit
// events with absolute counters and function addresses, a block at a time:
// memory stays bounded by the block and the stream's function ids, whatever
// the length of the stream. Every read is bounds-checked; what cannot be
// decoded ends the stream with a warning that names the file and the byte
// offset, and what was decoded before stays.
#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "format/trace_reader.h"
#include "runtime/trace/trace_contract.h"
#include "util/expected.h"

namespace covkit::format {

inline constexpr size_t kTraceHeaderSize = CKT_HEADER_SIZE;

enum class StreamStatus {
  kOk,        // a stream (possibly damaged: see the warnings)
  kNoHeader,  // empty or an all-zero header: the thread's file was just created
  kNotStream  // wrong magic or a short header (a warning says which)
};

struct StreamHeader {
  uint32_t pid = 0, tid = 0;
  uint64_t start = 0;
  bool ended = false;                  // CKT_FLAG_ENDED
  uint32_t chunk = 0;                  // bytes per chunk, where syncs are (0: none, version 1)
  std::optional<StreamCounts> counts;  // CKT_FLAG_COUNTS
};

// Reads the header from the first bytes of a stream (at least
// kTraceHeaderSize of them for kOk).
StreamStatus parse_stream_header(std::span<const uint8_t> bytes, const std::string& file, StreamHeader& header,
                                 std::vector<std::string>& warnings);

// A stream's bytes: a file read as it is (a running program may still be
// writing it, so nothing is mapped: a file cut shorter under a mapping would
// be SIGBUS), or bytes in memory.
class StreamBytes {
 public:
  explicit StreamBytes(std::span<const uint8_t> bytes) : memory_(bytes) {}
  static Expected<StreamBytes> open(const std::string& path);
  StreamBytes(StreamBytes&& other) noexcept;
  StreamBytes& operator=(StreamBytes&&) = delete;
  ~StreamBytes();

  // Up to n bytes at `offset`: how many (0 at the end), -1 on a read error.
  ssize_t read(uint64_t offset, uint8_t* out, size_t n) const;
  uint64_t size() const;  // now
  // Hints that [offset, offset + n) will be read soon (files only).
  void will_need(uint64_t offset, size_t n) const;

 private:
  explicit StreamBytes(int fd) : fd_(fd) {}
  int fd_ = -1;
  std::span<const uint8_t> memory_;
};

// What a stream says besides its events, known once it is read to the end
// (initial_stack: once the first block was asked for).
struct StreamSummary {
  std::vector<uint64_t> initial_stack;  // frames open when the stream starts (fork), outermost first
  uint64_t lost = 0;                    // events the runtime reported dropped
  bool ended = false;                   // an end event or the header's flag
  bool truncated = false;               // it ends inside an event (still running, or killed)
  uint64_t bytes = 0;                   // header and decoded events
  uint64_t last_time = 0;               // counter of the last event read, specials included
  uint64_t events = 0, calls = 0;       // enter and exit events decoded; enters
  uint64_t specials = 0;                // other events decoded (define, lost, stack, sync, end)
};

// A stream file with its header, for a reader that reads it in parts.
struct OpenedStream {
  StreamBytes bytes;
  StreamHeader header;
};
// nullopt when the file cannot be opened or holds no stream (the front to
// back reader then says why).
std::optional<OpenedStream> open_stream(const std::string& path);

// The counter where frames still open at the end of a thread's stream
// close: `last`, the last thing the thread is known to have done, or the
// end of its process when that ended normally later and the stream did not
// end (the thread outlived its stream).
inline uint64_t open_frames_end(uint64_t last, bool stream_ended, const std::optional<uint64_t>& process_end) {
  return process_end && !stream_ended && *process_end > last ? *process_end : last;
}

// Bytes read at a time.
inline constexpr size_t kStreamWindow = size_t(1) << 20;

// Where a decoder starts inside a stream: a restart point (a `sync`, see
// trace_stream_ranges.h) with what the events before it left behind.
struct StreamResume {
  uint64_t offset = 0;  // of the sync event, past the header
  uint64_t time = 0;    // its counter
  uint64_t depth = 0;   // frames open there
  std::vector<std::pair<uint64_t, uint64_t>> defines;  // (id, address) defined before it, in order
};

class StreamDecoder {
 public:
  // Decodes `bytes` past the header; `start` and `ended_flag` come from it.
  // `window`: bytes read at a time (tests and the fuzzer make it small; the
  // events decoded do not depend on it).
  StreamDecoder(const StreamBytes& bytes, const std::string& file, uint64_t start, bool ended_flag,
                std::vector<std::string>& warnings, size_t window = kStreamWindow);
  // Decodes from a restart point on (its summary counts what follows it;
  // initial_stack stays empty, a stack event there is a stray one). The
  // window is no larger than what is left of the file (at least a page: a
  // program still writing may add to it): the tail of a stream read in
  // parts is a chunk at most.
  StreamDecoder(const StreamBytes& bytes, const std::string& file, const StreamResume& resume, bool ended_flag,
                std::vector<std::string>& warnings, size_t window = kStreamWindow);
  ~StreamDecoder();
  StreamDecoder(const StreamDecoder&) = delete;
  StreamDecoder& operator=(const StreamDecoder&) = delete;

  // Appends up to `max` events to `out` (after initial_stack, perfectly
  // nested); false when the stream is done and nothing was appended.
  bool next(std::vector<TraceEvent>& out, size_t max);
  // The same into `out` (not empty), the fast way: how many events (0 when
  // the stream is done).
  size_t next(std::span<TraceEvent> out);
  // Reads the rest, counting events without keeping them.
  void count_rest();
  // From now on each `lost` special also comes out as a kLost event at its
  // place (not counted in the summary's events): for views that show where
  // the runtime dropped events. Off by default.
  void report_lost(bool on);
  // Complete after next() returned false or count_rest().
  const StreamSummary& summary() const;

 private:
  class Impl;
  std::unique_ptr<Impl> impl_;
};

// A whole stream in memory decoded into `thread` (tid, start, initial_stack,
// events, lost, ended, truncated, bytes, last_time); `header` receives the
// header. For tests and the fuzzer: views read streams a block at a time.
StreamStatus decode_trace_stream(std::span<const uint8_t> bytes, const std::string& file, TraceThread& thread,
                                 StreamHeader& header, std::vector<std::string>& warnings,
                                 size_t window = kStreamWindow);

// Counts what decode_trace_stream would return without keeping the events:
// false when `bytes` hold no stream.
struct StreamTally {
  uint64_t events = 0, enters = 0;
  uint64_t bytes = 0;  // header and decoded events
};
bool count_trace_stream(std::span<const uint8_t> bytes, StreamTally& counts);

}  // namespace covkit::format
