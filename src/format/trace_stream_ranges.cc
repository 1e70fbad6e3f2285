#include "format/trace_stream_ranges.h"

#include <algorithm>
#include <cstring>

namespace covkit::format {

namespace {

// The longest event of a part: a define (1 + 10 + 10 + 8) or a sync.
constexpr size_t kMaxEvent = 32;
// How far past a chunk's start its sync may be: after the bytes of the event
// that crossed the boundary (the runtime's events are at most CKT_MAX_EVENT).
constexpr size_t kSyncSearch = 48;
constexpr size_t kWindow = size_t(1) << 20;

// LEB128 of at most 64 bits from p (which has kMaxEvent bytes); false when
// it does not fit.
bool varint(const uint8_t*& p, uint64_t& v) {
  v = 0;
  for (unsigned shift = 0; shift < 64; shift += 7) {
    const uint8_t b = *p++;
    if (shift == 63 && (b & 0xfe)) return false;
    v |= uint64_t(b & 0x7f) << shift;
    if (!(b & 0x80)) return true;
  }
  return false;
}

// A sync event at p (n bytes readable) recorded at file offset `at`.
bool sync_at(const uint8_t* p, size_t n, uint64_t at, uint64_t& time) {
  if (n < 3 || p[0] != CKT_KIND_SPECIAL || p[1] != CKT_SPECIAL_SYNC) return false;
  uint8_t event[kMaxEvent] = {};
  std::memcpy(event, p, std::min(n, kMaxEvent));
  const uint8_t* q = event + 2;
  uint64_t offset = 0;
  return varint(q, time) && q - event <= 22 && varint(q, offset) && q - event <= 22 && offset == at;
}

}  // namespace

std::vector<StreamRestart> find_restarts(const StreamBytes& bytes, const StreamHeader& header) {
  std::vector<StreamRestart> out{{kTraceHeaderSize, header.start}};
  if (header.chunk < kSyncSearch) return out;
  const uint64_t size = bytes.size();
  uint8_t look[kSyncSearch + kMaxEvent];
  for (uint64_t chunk = header.chunk; chunk + 3 <= size; chunk += header.chunk) {
    const ssize_t n = bytes.read(chunk, look, sizeof look);
    if (n < 3) break;
    for (size_t i = 0; i < kSyncSearch && i + 3 <= size_t(n); ++i) {
      uint64_t time = 0;
      if (sync_at(look + i, size_t(n) - i, chunk + i, time)) {
        out.push_back({chunk + i, time});
        break;
      }
    }
  }
  return out;
}

RangeDecoder::RangeDecoder(const StreamBytes& bytes, const StreamRestart& from, const StreamRestart& to)
    : bytes_(bytes), to_(to), base_(from.offset), time_(from.time) {
  // No larger than the part: small chunks make many parts.
  buf_.resize(size_t(std::min<uint64_t>(kWindow, to.offset - from.offset + kMaxEvent)) + kMaxEvent);
  s_.end_time = from.time;
}

// Keeps the unread bytes and reads up to the part's end behind them, with
// kMaxEvent zero bytes of margin, so that an event is decoded without bounds
// checks (a part's events end at to_.offset; a read past it is unusual).
bool RangeDecoder::refill() {
  const size_t keep = end_ - pos_;
  std::memmove(buf_.data(), buf_.data() + pos_, keep);
  base_ += pos_;
  pos_ = 0;
  end_ = keep;
  const uint64_t want = std::min<uint64_t>(buf_.size() - kMaxEvent - keep, to_.offset - (base_ + keep));
  size_t got = 0;
  while (got < want) {
    const ssize_t n = bytes_.read(base_ + keep + got, buf_.data() + keep + got, size_t(want - got));
    if (n <= 0) return false;
    got += size_t(n);
  }
  end_ += got;
  std::fill(buf_.begin() + ptrdiff_t(end_), buf_.begin() + ptrdiff_t(end_ + kMaxEvent), 0);
  return true;
}

size_t RangeDecoder::next(std::span<TraceEvent> out) {
  size_t n = 0;
  while (!done_ && n < out.size()) {
    // Refilled when no event may start in the window any more (see limit).
    if (end_ - pos_ <= kMaxEvent && base_ + end_ < to_.offset && !refill()) {
      s_.unusual = true;  // the file is shorter than it was
      break;
    }
    if (base_ + pos_ >= to_.offset) {  // exactly at the next restart point
      done_ = true;
      if (base_ + pos_ != to_.offset || time_ != to_.time) s_.unusual = true;
      break;
    }
    const uint8_t* p = buf_.data() + pos_;
    // Events start before `limit`: kMaxEvent short of the window's end while
    // the part goes on (so none is cut), at its end when it is the part's.
    const bool last_window = base_ + end_ >= to_.offset;
    const uint8_t* const limit = buf_.data() + (last_window ? end_ : end_ - kMaxEvent);
    while (n < out.size() && p < limit) {
      const uint8_t lead = *p;
      const unsigned kind = lead & 3;
      const uint8_t* q = p + 1;
      uint64_t delta = lead >> 3;
      if (lead & 4) {
        uint64_t more = 0;
        if (!varint(q, more) || (more >> 59)) {
          s_.unusual = true;
          break;
        }
        delta |= more << 5;
      }
      const uint64_t next = time_ + delta;
      if (next < time_ || kind == 0) {  // a wrapped time is clamped, a zero byte ends the data
        s_.unusual = true;
        break;
      }
      if (kind == CKT_KIND_ENTER) {
        uint64_t id = 0;
        if (!varint(q, id) || id == 0 || id >= kRangeMaxId) {
          s_.unusual = true;
          break;
        }
        if (id >= ids_.size()) ids_.resize(std::max<size_t>(id + 1, ids_.size() * 2), 0);
        if (ids_[id] == 0) {  // used before any define of this part
          ids_[id] = 2;
          s_.needed.push_back(id);
        }
        out[n++] = {.kind = TraceEvent::Kind::kEnter, .fn_id = uint32_t(id), .time = next};
      } else if (kind == CKT_KIND_EXIT) {
        out[n++] = {.kind = TraceEvent::Kind::kExit, .time = next};
      } else if (!special(q)) {
        s_.unusual = true;
        break;
      }
      time_ = next;
      p = q;
    }
    pos_ = size_t(p - buf_.data());
    if (s_.unusual) break;
    if (pos_ > end_) {  // an event read into the margin: it crosses the part's end
      s_.unusual = true;
      break;
    }
  }
  if (s_.unusual) done_ = true;
  s_.end_time = time_;
  return s_.unusual ? 0 : n;
}

// A special inside a part: define, lost, or a sync that agrees with the
// time (a chunk whose own sync was not found). Others are unusual: a stack
// (only at the stream's start), an end (only in the last part).
bool RangeDecoder::special(const uint8_t*& p) {
  uint64_t subtype = 0, a = 0, b = 0;
  if (!varint(p, subtype)) return false;
  if (subtype == CKT_SPECIAL_DEFINE) {
    if (!varint(p, a)) return false;
    uint64_t address = 0;
    for (int i = 0; i < 8; ++i) address |= uint64_t(p[i]) << (8 * i);
    p += 8;
    s_.defines.emplace_back(a, address);
    if (a < kRangeMaxId) {
      if (a >= ids_.size()) ids_.resize(std::max<size_t>(a + 1, ids_.size() * 2), 0);
      if (ids_[a] == 0) ids_[a] = 1;
    }
    return true;
  }
  if (subtype == CKT_SPECIAL_LOST) {
    if (!varint(p, a)) return false;
    s_.lost = a > UINT64_MAX - s_.lost ? UINT64_MAX : s_.lost + a;
    return true;
  }
  if (subtype == CKT_SPECIAL_SYNC) return varint(p, a) && varint(p, b);
  return false;
}

}  // namespace covkit::format
