#include "format/trace_stream_decoder.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <unordered_map>

#include "util/printable.h"

namespace covkit::format {

namespace {

enum : uint8_t { kEnter = 1, kExit = 2, kSpecial = 3 };
enum : uint64_t { kDefine = 1, kLost = 2, kStack = 3, kEnd = 4 };

// Ids below this live in a flat table (8 bytes each, so at most 8 MiB even
// for a hostile stream); larger ones, which the runtime never writes (its
// table has 65536 entries), in a hash map whose size is bounded by the
// number of define events, hence by the file size.
constexpr uint64_t kDenseIds = uint64_t(1) << 20;

uint32_t le32(const uint8_t* p) {
  return uint32_t(p[0]) | uint32_t(p[1]) << 8 | uint32_t(p[2]) << 16 | uint32_t(p[3]) << 24;
}
uint64_t le64(const uint8_t* p) { return uint64_t(le32(p)) | uint64_t(le32(p + 4)) << 32; }

class Decoder {
 public:
  // With `count_only`, events are counted in `count` instead of stored.
  Decoder(std::span<const uint8_t> bytes, const std::string& file, TraceThread& thread,
          std::vector<std::string>& warnings, bool ended_flag, bool count_only = false)
      : b_(bytes), file_(file), t_(thread), warnings_(warnings), ended_flag_(ended_flag), count_only_(count_only) {}

  uint64_t count = 0, enters = 0;

  void run();

 private:
  enum class Read { kOk, kEof, kBad };

  // LEB128, at most 10 bytes and 64 bits.
  Read varint(uint64_t& v) {
    v = 0;
    for (unsigned shift = 0;; shift += 7) {
      if (pos_ >= b_.size()) return Read::kEof;
      uint8_t byte = b_[pos_++];
      if (shift == 63 && (byte & 0xfe)) return Read::kBad;  // more than 64 bits
      v |= uint64_t(byte & 0x7f) << shift;
      if (!(byte & 0x80)) return Read::kOk;
    }
  }

  bool defined(uint64_t id, uint64_t* address) const {
    if (id < kDenseIds) {
      if (id >= dense_defined_.size() || !dense_defined_[id]) return false;
      *address = dense_[id];
      return true;
    }
    auto it = sparse_.find(id);
    if (it == sparse_.end()) return false;
    *address = it->second;
    return true;
  }

  void define(uint64_t id, uint64_t address) {
    if (id < kDenseIds) {
      if (id >= dense_.size()) {
        dense_.resize(id + 1, 0);
        dense_defined_.resize(id + 1, 0);
      }
      dense_[id] = address;
      dense_defined_[id] = 1;
    } else {
      sparse_[id] = address;
    }
  }

  void store(const TraceEvent& e) {
    if (count_only_) ++count, enters += e.kind == TraceEvent::Kind::kEnter;
    else t_.events.push_back(e);
  }

  bool zero_from(size_t pos) const {
    return std::all_of(b_.begin() + std::min(pos, b_.size()), b_.end(), [](uint8_t c) { return c == 0; });
  }

  // The runtime writes an event's bytes in order into a zeroed file, so a
  // reader racing it sees the bytes not yet written as zeros, which decode as
  // a (wrong) complete event ending in a zero byte. Such an event, when only
  // zeros follow it in a stream that has not ended, may be incomplete: it is
  // dropped (the next read gets it whole).
  bool possibly_torn() {
    if (ended_flag_ || b_[pos_ - 1] != 0 || !zero_from(pos_)) return false;
    t_.truncated = true;
    done_ = true;
    return true;
  }

  void warn(size_t offset, const std::string& what) {
    warnings_.push_back(fmt::format("{}: byte {}: {}", util::printable(file_), offset, what));
  }

  // The event that starts at `event` cannot be read past `at`. Stops decoding.
  void stop(Read why, size_t event, size_t at, const std::string& what) {
    if (why == Read::kEof) {
      // The file ends inside the event: a copy cut short, or a runtime that
      // sized its file to the data and was killed mid-write.
      t_.truncated = true;
      warn(event, "the stream ends inside an event (cut short); the event is dropped");
    } else if (zero_from(at)) {
      // The event's first bytes are there and the rest is still zero: the
      // program is writing it right now (or was killed while doing so).
      t_.truncated = true;
    } else {
      warn(event, what + "; the rest of the stream is ignored");
    }
    done_ = true;
  }

  std::span<const uint8_t> b_;
  const std::string& file_;
  TraceThread& t_;
  std::vector<std::string>& warnings_;
  const bool ended_flag_, count_only_;
  size_t pos_ = kTraceHeaderSize;
  bool done_ = false;
  std::vector<uint64_t> dense_;
  std::vector<uint8_t> dense_defined_;
  std::unordered_map<uint64_t, uint64_t> sparse_;
};

void Decoder::run() {
  uint64_t time = t_.start;
  uint64_t depth = 0;  // open frames, initial stack included
  uint64_t unmatched_exits = 0, stray_stacks = 0;
  bool overflow_warned = false, seen_event = false;
  t_.bytes = kTraceHeaderSize;
  t_.last_time = time;
  while (!done_) {
    const size_t event = pos_;
    if (pos_ >= b_.size() || b_[pos_] == 0) break;  // end of the data (or of the file)
    const uint8_t lead = b_[pos_++];
    const uint8_t kind = lead & 3;
    if (kind == 0) {
      stop(Read::kBad, event, event, fmt::format("lead byte 0x{:02x} has kind 0", lead));
      break;
    }
    uint64_t delta = lead >> 3;
    if (lead & 4) {
      size_t at = pos_;
      uint64_t more = 0;
      Read r = varint(more);
      if (r == Read::kOk && (more >> 59) != 0) r = Read::kBad;
      if (r != Read::kOk) {
        stop(r, event, at, "the time delta does not fit in 64 bits");
        break;
      }
      delta |= more << 5;
    }
    uint64_t next = time + delta;
    if (next < time) {  // wrapped: clamp, time never goes backwards
      if (!overflow_warned) warn(event, "the time overflows 64 bits; clamped");
      overflow_warned = true;
      next = UINT64_MAX;
    }

    if (kind == kEnter) {
      size_t at = pos_;
      uint64_t id = 0, address = 0;
      Read r = varint(id);
      if (r == Read::kOk && !defined(id, &address)) r = Read::kBad;
      if (r != Read::kOk) {
        stop(r, event, at, fmt::format("enter of function id {}, which no define event introduced", id));
        break;
      }
      if (possibly_torn()) break;
      time = next;
      seen_event = true;
      store({TraceEvent::Kind::kEnter, time, address});
      ++depth;
    } else if (kind == kExit) {
      if (possibly_torn()) break;
      time = next;
      seen_event = true;
      if (depth == 0) {
        if (unmatched_exits++ == 0) warn(event, "an exit with no open frame (dropped)");
      } else {
        store({TraceEvent::Kind::kExit, time, 0});
        --depth;
      }
    } else {
      size_t at = pos_;
      uint64_t subtype = 0;
      Read r = varint(subtype);
      if (r != Read::kOk) {
        stop(r, event, at, "the special event's subtype does not fit in 64 bits");
        break;
      }
      if (subtype == kDefine) {
        at = pos_;
        uint64_t id = 0;
        r = varint(id);
        if (r != Read::kOk) {
          stop(r, event, at, "the function id does not fit in 64 bits");
          break;
        }
        if (b_.size() - pos_ < 8) {
          stop(Read::kEof, event, pos_, "");
          break;
        }
        pos_ += 8;
        if (possibly_torn()) break;
        define(id, le64(&b_[pos_ - 8]));
      } else if (subtype == kLost) {
        at = pos_;
        uint64_t count = 0;
        r = varint(count);
        if (r != Read::kOk) {
          stop(r, event, at, "the lost count does not fit in 64 bits");
          break;
        }
        if (possibly_torn()) break;
        t_.lost = count > UINT64_MAX - t_.lost ? UINT64_MAX : t_.lost + count;
      } else if (subtype == kStack) {
        at = pos_;
        uint64_t n = 0;
        r = varint(n);
        // Each frame takes at least one byte: a count beyond the bytes left
        // is a lie, refused before anything is allocated for it.
        if (r == Read::kOk && n > b_.size() - pos_) r = zero_from(pos_) ? Read::kEof : Read::kBad;
        if (r != Read::kOk) {
          if (r == Read::kEof && pos_ < b_.size()) {  // the frames are not written yet
            t_.truncated = true;
            done_ = true;
            break;
          }
          stop(r, event, at, fmt::format("a stack of {} frames in {} bytes", n, b_.size() - std::min(pos_, b_.size())));
          break;
        }
        std::vector<uint64_t> frames;
        frames.reserve(n);
        for (uint64_t i = 0; i < n && r == Read::kOk; ++i) {
          at = pos_;
          uint64_t id = 0, address = 0;
          r = varint(id);
          if (r == Read::kOk && !defined(id, &address)) r = Read::kBad;
          frames.push_back(address);
        }
        if (r != Read::kOk) {
          stop(r, event, at, "a stack frame whose function id no define event introduced");
          break;
        }
        if (possibly_torn()) break;
        if (!seen_event && t_.initial_stack.empty()) {
          depth = frames.size();
          t_.initial_stack = std::move(frames);
        } else if (stray_stacks++ == 0) {
          warn(event, "a stack event after the stream started (ignored)");
        }
      } else if (subtype == kEnd) {
        t_.ended = true;
        done_ = true;
      } else {
        // Specials carry no length: one of an unknown subtype cannot be skipped.
        stop(Read::kBad, event, event, fmt::format("special event of unknown subtype {}", subtype));
        break;
      }
      time = next;
    }
    t_.bytes = pos_;
    t_.last_time = time;
  }
  if (unmatched_exits > 1)
    warnings_.push_back(
        fmt::format("{}: {} exits with no open frame were dropped", util::printable(file_), unmatched_exits));
}

}  // namespace

bool count_trace_stream(std::span<const uint8_t> bytes, StreamCounts& counts) {
  if (bytes.size() < kTraceHeaderSize || std::memcmp(bytes.data(), kTraceMagic, sizeof kTraceMagic) != 0)
    return false;
  TraceThread scratch;
  scratch.start = le64(&bytes[16]);
  std::vector<std::string> ignored;
  std::string name;
  Decoder counter(bytes, name, scratch, ignored, le32(&bytes[24]) & 1, true);
  counter.run();
  counts.events = counter.count;
  counts.enters = counter.enters;
  counts.bytes = scratch.bytes;
  return true;
}

StreamStatus decode_trace_stream(std::span<const uint8_t> bytes, const std::string& file, TraceThread& thread,
                                 StreamHeader& header, std::vector<std::string>& warnings) {
  const size_t head = std::min(bytes.size(), kTraceHeaderSize);
  if (std::all_of(bytes.begin(), bytes.begin() + head, [](uint8_t c) { return c == 0; })) return StreamStatus::kNoHeader;
  if (bytes.size() < kTraceHeaderSize) {
    warnings.push_back(fmt::format("{}: byte 0: a header of {} bytes (64 expected); not read",
                                   util::printable(file), bytes.size()));
    return StreamStatus::kNotStream;
  }
  if (std::memcmp(bytes.data(), kTraceMagic, sizeof kTraceMagic) != 0) {
    warnings.push_back(fmt::format("{}: byte 0: not a covkit thread stream (no CKTRACE1 magic); not read",
                                   util::printable(file)));
    return StreamStatus::kNotStream;
  }
  header.pid = le32(&bytes[8]);
  header.tid = le32(&bytes[12]);
  thread.tid = header.tid;
  thread.start = le64(&bytes[16]);
  const bool ended_flag = le32(&bytes[24]) & 1;
  // A large stream is decoded twice: first to count its events, so that the
  // event vector is allocated once (no regrowth copies, no doubled peak).
  constexpr size_t kCountFirst = size_t(4) << 20;
  if (bytes.size() > kCountFirst) {
    TraceThread scratch = thread;
    std::vector<std::string> ignored;
    Decoder counter(bytes, file, scratch, ignored, ended_flag, true);
    counter.run();
    thread.events.reserve(counter.count);
  }
  Decoder(bytes, file, thread, warnings, ended_flag).run();
  // The flag is set last, after the end event; either says the thread ended.
  thread.ended = thread.ended || ended_flag;
  return StreamStatus::kOk;
}

}  // namespace covkit::format
