#pragma once
// One thread stream cut at its restart points (`sync` events, version 2:
// docs/trace-format.md, "Reading in parallel"), so that its parts can be
// decoded on several cores. A part is decoded strictly: anything a front to
// back decode would warn about, stop at or read differently (an unknown or
// misplaced special, a zero byte, an id out of range, a time that wraps, a
// part that does not end exactly at the next restart point) makes it
// `unusual`, and the caller reads the stream front to back instead.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <type_traits>
#include <utility>
#include <vector>

#include "format/trace_stream_decoder.h"

namespace covkit::format {

struct StreamRestart {
  uint64_t offset = 0;  // of the sync event (the header's end for the first part)
  uint64_t time = 0;    // the counter there
};

// The stream's restart points in order, the first being the header's end
// with its start counter, found as the reader goes: a few bytes are read at
// each multiple of the chunk size, and a sync is taken only where its
// recorded offset is its own. The finder asks the kernel to read the file
// ahead of it (kRestartReadAhead bytes), so that on a cold page cache the
// disk reads on in order while the parts found so far are replayed, instead
// of a probe per chunk waiting on the disk.
class RestartFinder {
 public:
  RestartFinder(const StreamBytes& bytes, const StreamHeader& header);
  // The next restart point; nullopt past the last one.
  std::optional<StreamRestart> next();

 private:
  const StreamBytes& bytes_;
  const uint32_t chunk_;
  const uint64_t size_;
  const uint64_t start_;  // the header's start counter
  uint64_t at_ = 0;       // the next chunk boundary to look at (0: the header's end is next)
  uint64_t advised_ = 0;  // the file is asked for, from its start up to here
};

inline constexpr uint64_t kRestartReadAhead = uint64_t(64) << 20;

// The parts of a stream in order: each runs from one restart point to the
// next; the last restart point starts the tail, read front to back.
struct StreamPart {
  StreamRestart from, to;
};
class StreamParts {
 public:
  StreamParts(const StreamBytes& bytes, const StreamHeader& header)
      : finder_(bytes, header), from_(*finder_.next()), to_(finder_.next()) {}
  // Whether there is any part (else the whole stream is the tail).
  bool any() const { return to_.has_value(); }
  // The next part; nullopt past the last.
  std::optional<StreamPart> next() {
    if (!to_) return std::nullopt;
    StreamPart part{from_, *to_};
    from_ = *to_;
    to_ = finder_.next();
    return part;
  }
  // Where the tail starts, once next() gave nullopt.
  const StreamRestart& tail() const { return from_; }

 private:
  RestartFinder finder_;
  StreamRestart from_;  // the first restart point is the header's end: always there
  std::optional<StreamRestart> to_;
};

// What a part says besides its enters and exits.
struct RangeSummary {
  bool unusual = false;
  uint64_t lost = 0;
  std::vector<std::pair<uint64_t, uint64_t>> defines;  // (id, address), in order
  std::vector<uint64_t> needed;  // ids entered before the part defined them: defined by an earlier part
  uint64_t end_time = 0;         // the counter where the part ends
};

// Ids of enters that the strict decoder passes on are below this (a part's
// replay keeps tables by id; the runtime's ids stop at its table's 65536
// entries, so only a damaged or hostile stream has more: it is read front
// to back).
inline constexpr uint64_t kRangeMaxId = uint64_t(1) << 17;

// The longest event of a part: a define (1 + 10 + 10 + 8) or a sync.
inline constexpr size_t kRangeMaxEvent = 32;

// The function ids of a stream read in parts, as the parts are stitched in
// order: each id names one address. An id that a part uses before any part
// defined it, or that a define gives another address (read in order, its
// calls would be of two functions), means the stream is read front to back.
class StreamIds {
 public:
  // The ids of the next part: false when they do not fit.
  bool add(const RangeSummary& part);
  // false for an id out of range (0, kRangeMaxId on) or defined otherwise.
  bool define(uint64_t id, uint64_t address);
  uint64_t address(uint64_t id) const { return id < address_.size() ? address_[id] : 0; }
  const std::vector<uint64_t>& addresses() const { return address_; }  // by id (0: not defined)
  std::vector<std::pair<uint64_t, uint64_t>> defines() const;          // (id, address) for a StreamResume

 private:
  std::vector<uint8_t> defined_;  // by id
  std::vector<uint64_t> address_;
};

// LEB128 of at most 64 bits from p (which has kRangeMaxEvent bytes); false
// when it does not fit.
inline bool range_varint(const uint8_t*& p, uint64_t& v) {
  v = 0;
  for (unsigned shift = 0; shift < 64; shift += 7) {
    const uint8_t b = *p++;
    if (shift == 63 && (b & 0xfe)) return false;
    v |= uint64_t(b & 0x7f) << shift;
    if (!(b & 0x80)) return true;
  }
  return false;
}

// Decodes the enters and exits of [from.offset, to.offset) (exits of frames
// opened before the part included) into a sink, a window of the file at a
// time; ids are not resolved (their define may be in an earlier part):
// enters carry the stream's id. Memory: one window of the file.
class RangeDecoder {
 public:
  RangeDecoder(const StreamBytes& bytes, const StreamRestart& from, const StreamRestart& to);
  // Calls sink.enter(uint32_t id, uint64_t counter) and
  // sink.exit(uint64_t counter) for each event of the part, in order, up to
  // its end or until it proves unusual (then what the sink got is no use).
  // One loop with the sink inlined: a part is read at a few nanoseconds
  // per event, where a call per event would be a good part of the cost.
  template <class Sink>
  void run(Sink& sink);
  // Complete once run() returned.
  const RangeSummary& summary() const { return s_; }

 private:
  bool refill();
  // The cursor past a special at p, nullptr when it is not one a part may hold.
  const uint8_t* special(const uint8_t* p);
  void first_use(uint64_t id);

  const StreamBytes& bytes_;
  const StreamRestart to_;
  std::vector<uint8_t> buf_;
  size_t pos_ = 0, end_ = 0;
  uint64_t base_ = 0;  // file offset of buf_[0]
  uint64_t time_ = 0;
  bool done_ = false;
  std::vector<uint8_t> ids_;  // by id: 1 defined in this part before any use, 2 used first
  RangeSummary s_;
};

namespace detail {
struct NoHot {};
template <class Sink>
struct HotOf {
  using type = NoHot;
};
template <class Sink>
  requires requires { typename Sink::Hot; }
struct HotOf<Sink> {
  using type = typename Sink::Hot;
};
}  // namespace detail

template <class Sink>
void RangeDecoder::run(Sink& sink) {
  // A sink with a Hot state hands it out for the run and takes it back at
  // the end: a local of this loop, it stays in registers (see PartReplay).
  constexpr bool kHot = !std::is_same_v<typename detail::HotOf<Sink>::type, detail::NoHot>;
  [[maybe_unused]] typename detail::HotOf<Sink>::type hot{};
  if constexpr (kHot) hot = sink.hot();
  while (!done_) {
    // Refilled when no event may start in the window any more (see limit).
    if (end_ - pos_ <= kRangeMaxEvent && base_ + end_ < to_.offset && !refill()) {
      s_.unusual = true;  // the file is shorter than it was
      break;
    }
    if (base_ + pos_ >= to_.offset) {  // exactly at the next restart point
      done_ = true;
      if (base_ + pos_ != to_.offset || time_ != to_.time) s_.unusual = true;
      break;
    }
    const uint8_t* p = buf_.data() + pos_;
    // Events start before `limit`: kRangeMaxEvent short of the window's end
    // while the part goes on (so none is cut), at its end when it is the
    // part's (the window has kRangeMaxEvent zero bytes past its end).
    const bool last_window = base_ + end_ >= to_.offset;
    const uint8_t* const limit = buf_.data() + (last_window ? end_ : end_ - kRangeMaxEvent);
    uint64_t time = time_;
    bool bad = false;
    // The cursor and the id table stay in registers: nothing in the loop
    // takes their address (special() returns the new cursor, and the table
    // is looked up again after the calls that may grow it).
    const uint8_t* ids = ids_.data();
    size_t nids = ids_.size();
    while (p < limit) {
      const uint8_t lead = *p;
      const uint8_t* q = p + 1;
      uint64_t delta = lead >> 3;
      if (lead & 4) {  // the delta goes on: one more byte is the common case
        if (*q < 0x80) [[likely]] {
          delta |= uint64_t(*q++) << 5;
        } else {
          uint64_t more = 0;
          if (!range_varint(q, more) || (more >> 59)) {
            bad = true;
            break;
          }
          delta |= more << 5;
        }
      }
      const uint64_t next = time + delta;
      if (next < time) [[unlikely]] {  // a wrapped time is clamped in order
        bad = true;
        break;
      }
      const unsigned kind = lead & 3;
      if (kind == CKT_KIND_EXIT) {
        if constexpr (kHot) sink.exit(hot, next);
        else sink.exit(next);
      } else if (kind == CKT_KIND_ENTER) {
        uint64_t id = *q;
        if (id < 0x80) [[likely]] {
          ++q;
        } else if (!range_varint(q, id)) {
          bad = true;
          break;
        }
        if (id == 0 || id >= kRangeMaxId) [[unlikely]] {
          bad = true;
          break;
        }
        if (id >= nids || ids[id] == 0) [[unlikely]] {
          first_use(id);
          ids = ids_.data();
          nids = ids_.size();
        }
        if constexpr (kHot) sink.enter(hot, uint32_t(id), next);
        else sink.enter(uint32_t(id), next);
      } else {
        q = kind == 0 ? nullptr : special(q);  // a zero byte ends the data
        if (q == nullptr) {
          bad = true;
          break;
        }
        ids = ids_.data();
        nids = ids_.size();
      }
      time = next;
      p = q;
    }
    time_ = time;
    pos_ = size_t(p - buf_.data());
    if (bad || pos_ > end_) {  // damage, or an event read into the margin: it crosses the part's end
      s_.unusual = true;
      break;
    }
  }
  if (s_.unusual) done_ = true;
  s_.end_time = time_;
  if constexpr (kHot) sink.set_hot(hot);
}

}  // namespace covkit::format
