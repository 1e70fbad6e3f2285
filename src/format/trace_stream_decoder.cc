#include "format/trace_stream_decoder.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <unordered_map>

#include "util/file_io.h"
#include "util/foreign_data.h"
#include "util/printable.h"

namespace covkit::format {

namespace {

// Ids below this live in a flat table (8 bytes each, so at most 8 MiB even
// for a hostile stream); larger ones, which the runtime never writes (its
// table has 65536 entries), in a hash map whose size is bounded by the
// number of define events, hence by the file size.
constexpr uint64_t kDenseIds = uint64_t(1) << 20;

// Windows asked of the disk ahead of the one being decoded.
constexpr size_t kReadAhead = 4;

uint32_t le32(const uint8_t* p) {
  return uint32_t(p[0]) | uint32_t(p[1]) << 8 | uint32_t(p[2]) << 16 | uint32_t(p[3]) << 24;
}
uint64_t le64(const uint8_t* p) { return uint64_t(le32(p)) | uint64_t(le32(p + 4)) << 32; }

}  // namespace

// ---- bytes ----

Expected<StreamBytes> StreamBytes::open(const std::string& path) {
  // Never a FIFO's or a device's open; another user's link to a file they
  // may not read is opened with their rights (util/foreign_data.h).
  util::note_data_path(path);
  auto opened = util::open_input_file(path);
  if (!opened) return opened.error();
  const int fd = opened->release();
  // Read front to back: a larger kernel readahead window (a cold trace
  // then reads at the disk's speed, not one window's latency at a time).
  (void)::posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
  return StreamBytes(fd);
}

void StreamBytes::will_need(uint64_t offset, size_t n) const {
  // Asynchronous: the kernel starts reading while the caller decodes.
  if (fd_ >= 0) (void)::posix_fadvise(fd_, off_t(offset), off_t(n), POSIX_FADV_WILLNEED);
}

StreamBytes::StreamBytes(StreamBytes&& other) noexcept : fd_(other.fd_), memory_(other.memory_) { other.fd_ = -1; }

StreamBytes::~StreamBytes() {
  if (fd_ >= 0) ::close(fd_);
}

ssize_t StreamBytes::read(uint64_t offset, uint8_t* out, size_t n) const {
  if (fd_ < 0) {
    if (offset >= memory_.size()) return 0;
    size_t k = std::min<uint64_t>(n, memory_.size() - offset);
    std::memcpy(out, memory_.data() + offset, k);
    return ssize_t(k);
  }
  for (;;) {
    ssize_t r = ::pread(fd_, out, n, off_t(offset));
    if (r >= 0 || errno != EINTR) return r;
  }
}

uint64_t StreamBytes::size() const {
  if (fd_ < 0) return memory_.size();
  struct stat st {};
  return ::fstat(fd_, &st) == 0 ? uint64_t(st.st_size) : 0;
}

// ---- header ----

StreamStatus parse_stream_header(std::span<const uint8_t> bytes, const std::string& file, StreamHeader& header,
                                 std::vector<std::string>& warnings) {
  const size_t head = std::min(bytes.size(), kTraceHeaderSize);
  if (std::all_of(bytes.begin(), bytes.begin() + head, [](uint8_t c) { return c == 0; })) return StreamStatus::kNoHeader;
  if (bytes.size() < kTraceHeaderSize) {
    warnings.push_back(fmt::format("{}: byte 0: a header of {} bytes ({} expected); not read",
                                   util::printable(file), bytes.size(), kTraceHeaderSize));
    return StreamStatus::kNotStream;
  }
  const bool v1 = std::memcmp(bytes.data() + CKT_HDR_MAGIC, CKT_MAGIC_V1, 8) == 0;
  if (!v1 && std::memcmp(bytes.data() + CKT_HDR_MAGIC, CKT_MAGIC, 8) != 0) {
    warnings.push_back(fmt::format("{}: byte 0: not a covkit thread stream (no {} magic); not read",
                                   util::printable(file), CKT_MAGIC));
    return StreamStatus::kNotStream;
  }
  header.pid = le32(&bytes[CKT_HDR_PID]);
  header.tid = le32(&bytes[CKT_HDR_TID]);
  header.start = le64(&bytes[CKT_HDR_START]);
  const uint32_t flags = le32(&bytes[CKT_HDR_FLAGS]);
  header.ended = flags & CKT_FLAG_ENDED;
  // Version 1 has no syncs; its field is zero (unknown) there anyway.
  header.chunk = v1 ? 0 : le32(&bytes[CKT_HDR_CHUNK]);
  header.counts.reset();
  if (flags & CKT_FLAG_COUNTS)
    header.counts = StreamCounts{le64(&bytes[CKT_HDR_CALLS]), le64(&bytes[CKT_HDR_EVENTS]), le64(&bytes[CKT_HDR_LOST])};
  return StreamStatus::kOk;
}

std::optional<OpenedStream> open_stream(const std::string& path) {
  auto bytes = StreamBytes::open(path);
  if (!bytes) return std::nullopt;
  uint8_t head[kTraceHeaderSize];
  if (bytes->read(0, head, sizeof head) != ssize_t(sizeof head)) return std::nullopt;
  StreamHeader header;
  std::vector<std::string> ignored;
  if (parse_stream_header(head, path, header, ignored) != StreamStatus::kOk) return std::nullopt;
  return OpenedStream{std::move(*bytes), header};
}

// ---- events ----

namespace {

size_t resume_window(const StreamBytes& bytes, uint64_t offset) {
  const uint64_t left = bytes.size() - std::min(bytes.size(), offset);
  return size_t(std::clamp<uint64_t>(left + 64, 4096, kStreamWindow));
}

}  // namespace

class StreamDecoder::Impl {
 public:
  Impl(const StreamBytes& bytes, const std::string& file, uint64_t start, bool ended_flag,
       std::vector<std::string>& warnings, size_t window)
      : bytes_(bytes), file_(file), warnings_(warnings), ended_flag_(ended_flag), time_(start) {
    buf_.resize(std::max<size_t>(window, 1));
    base_ = kTraceHeaderSize;
    s_.bytes = kTraceHeaderSize;
    s_.last_time = start;
    s_.ended = ended_flag;
  }

  // Decodes events until `max` are in `out` (or counted) or the stream ends.
  void run(std::vector<TraceEvent>* out, size_t max) {
    out_ = out;
    while (!done_ && (!out || out->size() < max)) step();
    if (done_ && !finished_) finish();
  }

  // Decodes up to `max` events into out[0..max) (nullptr: counts them);
  // how many. The bulk loop takes the common events, step() the rest.
  size_t run_into(TraceEvent* out, size_t max) {
    out_ = nullptr;
    size_t n = 0;
    while (!done_ && (!out || n < max)) {
      n += bulk(out ? out + n : nullptr, out ? max - n : SIZE_MAX);
      if (done_ || (out && n == max)) break;
      // The event the bulk loop stopped at, through the careful path.
      const uint64_t before = emitted_;
      sink_ = out ? out + n : nullptr;
      step();
      n += size_t(emitted_ - before);
      sink_ = nullptr;
    }
    if (done_ && !finished_) finish();
    return n;
  }

  void resume(const StreamResume& at) {
    for (const auto& [id, address] : at.defines) define(id, address);
    base_ = at.offset;
    s_.bytes = at.offset;
    time_ = at.time;
    s_.last_time = at.time;
    depth_ = at.depth;
    seen_event_ = true;
  }

  bool done() const { return done_; }
  const StreamSummary& summary() const { return s_; }
  void report_lost(bool on) { report_lost_ = on; }

 private:
  enum class Read { kOk, kEof, kBad };

  uint64_t pos() const { return base_ + pos_; }  // file offset of the next byte

  // The next byte, reading the next window when this one is used up.
  bool byte(uint8_t& b) {
    if (pos_ == end_ && !refill()) return false;
    b = buf_[pos_++];
    last_byte_ = b;
    return true;
  }

  bool refill() {
    if (eof_) return false;
    base_ += end_;
    pos_ = end_ = 0;
    ssize_t n = bytes_.read(base_, buf_.data(), buf_.size());
    if (n < 0) {
      warn(base_, fmt::format("cannot read: {}; the rest of the stream is ignored", std::strerror(errno)));
      eof_ = true;
      return false;
    }
    if (n == 0) {
      eof_ = true;
      return false;
    }
    end_ = size_t(n);
    // The windows after this one are read from the disk while this one is
    // decoded (a no-op when they are in the page cache already).
    if (size_t(n) == buf_.size()) bytes_.will_need(base_ + end_, kReadAhead * buf_.size());
    return true;
  }

  // At the end of the data: no byte, or a zero byte at an event boundary.
  bool at_end() {
    if (pos_ == end_ && !refill()) return true;
    return buf_[pos_] == 0;
  }

  // LEB128, at most 10 bytes and 64 bits.
  Read varint(uint64_t& v) {
    v = 0;
    for (unsigned shift = 0;; shift += 7) {
      uint8_t b;
      if (!byte(b)) return Read::kEof;
      if (shift == 63 && (b & 0xfe)) return Read::kBad;  // more than 64 bits
      v |= uint64_t(b & 0x7f) << shift;
      if (!(b & 0x80)) return Read::kOk;
    }
  }

  // Every byte from file offset `from` to the end is zero. Looks at the
  // window first: usually the next event's lead byte answers at once.
  bool zero_from(uint64_t from) {
    if (from >= base_ && from <= base_ + end_) {
      for (size_t i = size_t(from - base_); i < end_; ++i)
        if (buf_[i] != 0) return false;
      from = base_ + end_;
      if (eof_) return true;
    }
    uint8_t chunk[65536];
    for (;;) {
      ssize_t n = bytes_.read(from, chunk, sizeof chunk);
      if (n <= 0) return true;
      if (std::any_of(chunk, chunk + n, [](uint8_t c) { return c != 0; })) return false;
      from += uint64_t(n);
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
    ++s_.events;
    s_.calls += e.kind == TraceEvent::Kind::kEnter;
    emit(e);
  }

  void emit(const TraceEvent& e) {
    ++emitted_;
    if (out_) out_->push_back(e);
    if (sink_) *sink_ = e;
  }

  // The runtime writes an event's bytes in order into a zeroed file, so a
  // reader racing it sees the bytes not yet written as zeros, which decode as
  // a (wrong) complete event ending in a zero byte. Such an event, when only
  // zeros follow it in a stream that has not ended, may be incomplete: it is
  // dropped (the next read gets it whole).
  bool possibly_torn() {
    if (ended_flag_ || last_byte_ != 0 || !zero_from(pos())) return false;
    s_.truncated = true;
    done_ = true;
    return true;
  }

  void warn(uint64_t offset, const std::string& what) {
    warnings_.push_back(fmt::format("{}: byte {}: {}", util::printable(file_), offset, what));
    warned_ = true;
  }

  // The event that starts at `event` cannot be read past `at`. Stops decoding.
  void stop(Read why, uint64_t event, uint64_t at, const std::string& what) {
    if (why == Read::kEof) {
      // The file ends inside the event: a copy cut short, or a runtime that
      // sized its file to the data and was killed mid-write.
      s_.truncated = true;
      warn(event, "the stream ends inside an event (cut short); the event is dropped");
    } else if (zero_from(at)) {
      // The event's first bytes are there and the rest is still zero: the
      // program is writing it right now (or was killed while doing so).
      s_.truncated = true;
    } else {
      warn(event, what + "; the rest of the stream is ignored");
    }
    done_ = true;
  }

  void step();
  bool fast_step();
  size_t bulk(TraceEvent* out, size_t max);
  template <bool kStore>
  size_t bulk_loop(TraceEvent* out, size_t max);  // kStore false: counts
  // false when the special event could not be read whole (decoding stops).
  bool special(uint64_t event);
  bool stack(uint64_t event);
  void finish() {
    finished_ = true;
    // The runtime sets the header's flag after writing the end event; a
    // stream with the flag and no end event was cut at an event boundary
    // (a copy cut short), which no other check can see.
    if (ended_flag_ && !end_seen_ && !warned_)
      warn(pos(), "the header says the thread ended, but the stream stops here without its end event "
                  "(cut short?); the calls after this point are missing");
    if (unmatched_exits_ > 1)
      warnings_.push_back(fmt::format("{}: {} exits with no open frame were dropped", util::printable(file_),
                                      unmatched_exits_));
  }

  const StreamBytes& bytes_;
  const std::string file_;  // a copy: callers pass temporaries
  std::vector<std::string>& warnings_;
  const bool ended_flag_;
  bool end_seen_ = false, warned_ = false;
  std::vector<TraceEvent>* out_ = nullptr;
  TraceEvent* sink_ = nullptr;  // where step() puts its one event for run_into
  std::vector<uint8_t> buf_;
  uint64_t base_ = 0;       // file offset of buf_[0]
  size_t pos_ = 0, end_ = 0;
  bool eof_ = false, done_ = false, finished_ = false;
  uint8_t last_byte_ = 0;
  uint64_t time_ = 0;
  uint64_t depth_ = 0;  // open frames, initial stack included
  uint64_t unmatched_exits_ = 0, stray_stacks_ = 0;
  uint64_t emitted_ = 0;      // events handed out (with kLost ones when reported)
  uint64_t lost_here_ = 0;    // the count of the `lost` special just read
  bool report_lost_ = false;  // hand `lost` specials out as kLost events
  bool overflow_warned_ = false, seen_event_ = false;
  std::vector<uint64_t> dense_;
  std::vector<uint8_t> dense_defined_;
  std::unordered_map<uint64_t, uint64_t> sparse_;
  StreamSummary s_;
};

// Enters and exits whose bytes are all in the window, decoded without a
// check per byte: nearly every event. Anything else (a special, the end of
// the window or of the data, a possibly torn event, an unknown id, an exit
// without a frame, a time overflow) is left to the careful path, which
// starts over from the same byte.
bool StreamDecoder::Impl::fast_step() {
  const uint8_t* const p = buf_.data() + pos_;
  const uint8_t lead = p[0];
  const unsigned kind = lead & 3;
  if (kind != CKT_KIND_ENTER && kind != CKT_KIND_EXIT) return false;
  size_t n = 1;
  uint64_t delta = lead >> 3;
  if (lead & 4) {
    uint64_t more = 0;
    for (unsigned shift = 0;; shift += 7) {
      if (shift > 56) return false;
      const uint8_t b = p[n++];
      more |= uint64_t(b & 0x7f) << shift;
      if (!(b & 0x80)) break;
    }
    if (more >> 59) return false;
    delta |= more << 5;
  }
  const uint64_t next = time_ + delta;
  if (next < time_) return false;
  if (kind == CKT_KIND_ENTER) {
    uint64_t id = 0;
    for (unsigned shift = 0;; shift += 7) {
      if (shift > 56) return false;
      const uint8_t b = p[n++];
      id |= uint64_t(b & 0x7f) << shift;
      if (!(b & 0x80)) break;
    }
    if (id >= dense_defined_.size() || !dense_defined_[id]) return false;
    if (p[n - 1] == 0 && !ended_flag_) return false;  // possibly torn
    time_ = next;
    store({.kind = TraceEvent::Kind::kEnter, .fn_id = uint32_t(id), .time = time_, .address = dense_[id]});
    ++depth_;
  } else {
    if (depth_ == 0 || (p[n - 1] == 0 && !ended_flag_)) return false;
    time_ = next;
    store({.kind = TraceEvent::Kind::kExit, .time = time_});
    --depth_;
  }
  seen_event_ = true;
  last_byte_ = p[n - 1];
  pos_ += n;
  s_.bytes = pos();
  s_.last_time = time_;
  return true;
}

// fast_step's events, many at a time: the state lives in locals and is
// written back once, so the loop is loads, shifts and one store per event
// (no bounds check per byte, no push_back, no per-event member writes).
// It stops, leaving the event to step(), exactly where fast_step would
// refuse: the decoded events do not depend on which path took them.
size_t StreamDecoder::Impl::bulk(TraceEvent* out, size_t max) {
  return out ? bulk_loop<true>(out, max) : bulk_loop<false>(nullptr, max);
}

template <bool kStore>
size_t StreamDecoder::Impl::bulk_loop(TraceEvent* out, size_t max) {
  // An event the loop decodes takes at most 1 + 9 + 9 bytes; it looks no
  // further than 24 bytes past an event's start, like fast_step.
  if (end_ - pos_ < 24) return 0;
  const uint8_t* p = buf_.data() + pos_;
  const uint8_t* const start = p;
  const uint8_t* const limit = buf_.data() + end_ - 24;
  const uint64_t* const address = dense_.data();
  const uint8_t* const defined = dense_defined_.data();
  const uint64_t ids = dense_defined_.size();
  const bool torn_possible = !ended_flag_;
  uint64_t time = time_, depth = depth_, calls = 0;
  size_t n = 0;
  while (p <= limit && n < max) {
    const uint8_t lead = p[0];
    const unsigned kind = lead & 3;
    if (kind != CKT_KIND_ENTER && kind != CKT_KIND_EXIT) break;
    const uint8_t* q = p + 1;
    uint64_t delta = lead >> 3;
    if (lead & 4) {
      uint64_t more = 0;
      unsigned shift = 0;
      for (;; shift += 7) {
        if (shift > 56) break;
        const uint8_t b = *q++;
        more |= uint64_t(b & 0x7f) << shift;
        if (!(b & 0x80)) break;
      }
      if (shift > 56 || (more >> 59)) break;
      delta |= more << 5;
    }
    const uint64_t next = time + delta;
    if (next < time) break;
    if (kind == CKT_KIND_ENTER) {
      uint64_t id = *q++;
      if (id & 0x80) {  // ids from 128 on: rare (one byte covers 127 functions)
        id &= 0x7f;
        unsigned shift = 7;
        for (;; shift += 7) {
          if (shift > 56) break;
          const uint8_t b = *q++;
          id |= uint64_t(b & 0x7f) << shift;
          if (!(b & 0x80)) break;
        }
        if (shift > 56) break;
      }
      if (id >= ids || !defined[id]) break;
      if (q[-1] == 0 && torn_possible) break;
      time = next;
      if constexpr (kStore) out[n] = {.kind = TraceEvent::Kind::kEnter, .fn_id = uint32_t(id), .time = time, .address = address[id]};
      ++calls;
      ++depth;
    } else {
      if (depth == 0 || (q[-1] == 0 && torn_possible)) break;
      time = next;
      if constexpr (kStore) out[n] = {.kind = TraceEvent::Kind::kExit, .time = time};
      --depth;
    }
    p = q;
    ++n;
  }
  if (n == 0) return 0;
  time_ = time;
  depth_ = depth;
  last_byte_ = p[-1];  // the last event's last byte
  seen_event_ = true;
  pos_ += size_t(p - start);
  s_.events += n;
  emitted_ += n;
  s_.calls += calls;
  s_.bytes = pos();
  s_.last_time = time_;
  return n;
}

void StreamDecoder::Impl::step() {
  // An event the fast path decodes takes at most 1 + 10 + 10 bytes.
  if (end_ - pos_ >= 24 && fast_step()) return;
  const uint64_t event = pos();
  if (at_end()) {  // end of the data (or of the file)
    done_ = true;
    return;
  }
  uint8_t lead = 0;
  byte(lead);
  const uint8_t kind = lead & 3;
  if (kind == 0) {
    stop(Read::kBad, event, event, fmt::format("lead byte 0x{:02x} has kind 0", lead));
    return;
  }
  uint64_t delta = lead >> 3;
  if (lead & 4) {
    uint64_t at = pos(), more = 0;
    Read r = varint(more);
    if (r == Read::kOk && (more >> 59) != 0) r = Read::kBad;
    if (r != Read::kOk) {
      stop(r, event, at, "the time delta does not fit in 64 bits");
      return;
    }
    delta |= more << 5;
  }
  uint64_t next = time_ + delta;
  if (next < time_) {  // wrapped: clamp, time never goes backwards
    if (!overflow_warned_) warn(event, "the time overflows 64 bits; clamped");
    overflow_warned_ = true;
    next = UINT64_MAX;
  }

  if (kind == CKT_KIND_ENTER) {
    uint64_t at = pos(), id = 0, address = 0;
    Read r = varint(id);
    if (r == Read::kOk && !defined(id, &address)) r = Read::kBad;
    if (r != Read::kOk) {
      stop(r, event, at, fmt::format("enter of function id {}, which no define event introduced", id));
      return;
    }
    if (possibly_torn()) return;
    time_ = next;
    seen_event_ = true;
    store({.kind = TraceEvent::Kind::kEnter, .fn_id = id <= UINT32_MAX ? uint32_t(id) : 0, .time = time_, .address = address});
    ++depth_;
  } else if (kind == CKT_KIND_EXIT) {
    if (possibly_torn()) return;
    time_ = next;
    seen_event_ = true;
    if (depth_ == 0) {
      if (unmatched_exits_++ == 0) warn(event, "an exit with no open frame (dropped)");
    } else {
      store({.kind = TraceEvent::Kind::kExit, .time = time_});
      --depth_;
    }
  } else {
    lost_here_ = 0;
    if (!special(event)) return;
    ++s_.specials;
    time_ = next;
    if (report_lost_ && lost_here_ > 0) emit({.kind = TraceEvent::Kind::kLost, .time = time_, .address = lost_here_});
  }
  s_.bytes = pos();
  s_.last_time = time_;
}

bool StreamDecoder::Impl::special(uint64_t event) {
  uint64_t at = pos(), subtype = 0;
  Read r = varint(subtype);
  if (r != Read::kOk) {
    stop(r, event, at, "the special event's subtype does not fit in 64 bits");
    return false;
  }
  if (subtype == CKT_SPECIAL_DEFINE) {
    at = pos();
    uint64_t id = 0;
    r = varint(id);
    if (r != Read::kOk) {
      stop(r, event, at, "the function id does not fit in 64 bits");
      return false;
    }
    uint8_t a[8];
    for (uint8_t& b : a)
      if (!byte(b)) {
        stop(Read::kEof, event, pos(), "");
        return false;
      }
    if (possibly_torn()) return false;
    define(id, le64(a));
  } else if (subtype == CKT_SPECIAL_LOST) {
    at = pos();
    uint64_t count = 0;
    r = varint(count);
    if (r != Read::kOk) {
      stop(r, event, at, "the lost count does not fit in 64 bits");
      return false;
    }
    if (possibly_torn()) return false;
    s_.lost = count > UINT64_MAX - s_.lost ? UINT64_MAX : s_.lost + count;
    lost_here_ = count;
  } else if (subtype == CKT_SPECIAL_STACK) {
    return stack(event);
  } else if (subtype == CKT_SPECIAL_SYNC) {
    // A restart point for parallel readers (trace_stream_ranges.h); read
    // front to back it says nothing new.
    for (int field = 0; field < 2; ++field) {
      at = pos();
      uint64_t value = 0;
      r = varint(value);
      if (r != Read::kOk) {
        stop(r, event, at, "the sync event's fields do not fit in 64 bits");
        return false;
      }
    }
    if (possibly_torn()) return false;
  } else if (subtype == CKT_SPECIAL_END) {
    s_.ended = true;
    end_seen_ = true;
    done_ = true;
  } else {
    // Specials carry no length: one of an unknown subtype cannot be skipped.
    stop(Read::kBad, event, event, fmt::format("special event of unknown subtype {}", subtype));
    return false;
  }
  return true;
}

bool StreamDecoder::Impl::stack(uint64_t event) {
  uint64_t at = pos(), n = 0;
  Read r = varint(n);
  // Each frame takes at least one byte: a count beyond the bytes left is a
  // lie, refused before anything is allocated for it.
  const uint64_t size = std::max(bytes_.size(), base_ + end_);
  const uint64_t left = size - std::min(size, pos());
  if (r == Read::kOk && n > left) r = zero_from(pos()) ? Read::kEof : Read::kBad;
  if (r != Read::kOk) {
    if (r == Read::kEof && pos() < size) {  // the frames are not written yet
      s_.truncated = true;
      done_ = true;
      return false;
    }
    stop(r, event, at, fmt::format("a stack of {} frames in {} bytes", n, left));
    return false;
  }
  std::vector<uint64_t> frames;
  frames.reserve(n);
  for (uint64_t i = 0; i < n && r == Read::kOk; ++i) {
    at = pos();
    uint64_t id = 0, address = 0;
    r = varint(id);
    if (r == Read::kOk && !defined(id, &address)) r = Read::kBad;
    frames.push_back(address);
  }
  if (r != Read::kOk) {
    stop(r, event, at, "a stack frame whose function id no define event introduced");
    return false;
  }
  if (possibly_torn()) return false;
  if (!seen_event_ && s_.initial_stack.empty()) {
    depth_ = frames.size();
    s_.initial_stack = std::move(frames);
  } else if (stray_stacks_++ == 0) {
    warn(event, "a stack event after the stream started (ignored)");
  }
  return true;
}

StreamDecoder::StreamDecoder(const StreamBytes& bytes, const std::string& file, uint64_t start, bool ended_flag,
                             std::vector<std::string>& warnings, size_t window)
    : impl_(std::make_unique<Impl>(bytes, file, start, ended_flag, warnings, window)) {}

StreamDecoder::StreamDecoder(const StreamBytes& bytes, const std::string& file, const StreamResume& resume,
                             bool ended_flag, std::vector<std::string>& warnings, size_t window)
    : impl_(std::make_unique<Impl>(bytes, file, resume.time, ended_flag, warnings,
                                   std::min(window, resume_window(bytes, resume.offset)))) {
  impl_->resume(resume);
}

StreamDecoder::~StreamDecoder() = default;

bool StreamDecoder::next(std::vector<TraceEvent>& out, size_t max) {
  const size_t before = out.size();
  impl_->run(&out, max > SIZE_MAX - before ? SIZE_MAX : before + max);
  return out.size() > before;
}

size_t StreamDecoder::next(std::span<TraceEvent> out) { return out.empty() ? 0 : impl_->run_into(out.data(), out.size()); }

void StreamDecoder::count_rest() { impl_->run_into(nullptr, 0); }

void StreamDecoder::report_lost(bool on) { impl_->report_lost(on); }

const StreamSummary& StreamDecoder::summary() const { return impl_->summary(); }

// ---- whole streams in memory ----

StreamStatus decode_trace_stream(std::span<const uint8_t> bytes, const std::string& file, TraceThread& thread,
                                 StreamHeader& header, std::vector<std::string>& warnings, size_t window) {
  StreamStatus st = parse_stream_header(bytes, file, header, warnings);
  if (st != StreamStatus::kOk) return st;
  thread.tid = header.tid;
  thread.start = header.start;
  StreamBytes source(bytes);
  // A large stream is decoded twice: first to count its events, so that the
  // event vector is allocated once (no regrowth copies, no doubled peak).
  constexpr size_t kCountFirst = size_t(4) << 20;
  if (bytes.size() > kCountFirst) {
    std::vector<std::string> ignored;
    StreamDecoder counter(source, file, header.start, header.ended, ignored);
    counter.count_rest();
    thread.events.reserve(thread.events.size() + counter.summary().events);
  }
  StreamDecoder decoder(source, file, header.start, header.ended, warnings, window);
  while (decoder.next(thread.events, SIZE_MAX - thread.events.size())) {
  }
  const StreamSummary& s = decoder.summary();
  thread.initial_stack = s.initial_stack;
  thread.lost = s.lost;
  // The flag is set last, after the end event; either says the thread ended.
  thread.ended = s.ended || header.ended;
  thread.truncated = s.truncated;
  thread.bytes = s.bytes;
  thread.last_time = s.last_time;
  return StreamStatus::kOk;
}

bool count_trace_stream(std::span<const uint8_t> bytes, StreamTally& counts) {
  StreamHeader header;
  std::vector<std::string> ignored;
  if (bytes.size() < kTraceHeaderSize || parse_stream_header(bytes, "", header, ignored) != StreamStatus::kOk)
    return false;
  StreamBytes source(bytes);
  StreamDecoder counter(source, "", header.start, header.ended, ignored);
  counter.count_rest();
  counts.events = counter.summary().events;
  counts.enters = counter.summary().calls;
  counts.bytes = counter.summary().bytes;
  return true;
}

}  // namespace covkit::format
