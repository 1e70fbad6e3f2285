#include "format/trace_stream_records.h"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "runtime/trace/trace_contract.h"

namespace covkit::format {

StreamRecordWalker::StreamRecordWalker(const StreamBytes& bytes, uint64_t start, size_t window)
    : bytes_(bytes), time_(start) {
  buf_.resize(std::max<size_t>(window, 16));
  base_ = kTraceHeaderSize;
}

bool StreamRecordWalker::byte(uint8_t& b) {
  if (pos_ == end_) {
    if (eof_) return false;
    base_ += end_;
    pos_ = end_ = 0;
    ssize_t n = bytes_.read(base_, buf_.data(), buf_.size());
    if (n <= 0) {
      if (n < 0) damage_ = fmt::format("cannot read: {}", std::strerror(errno));
      eof_ = true;
      return false;
    }
    end_ = size_t(n);
  }
  b = buf_[pos_++];
  return true;
}

int StreamRecordWalker::varint(uint64_t& v) {
  v = 0;
  for (unsigned shift = 0;; shift += 7) {
    uint8_t b;
    if (!byte(b)) return 1;
    if (shift == 63 && (b & 0xfe)) return 2;
    v |= uint64_t(b & 0x7f) << shift;
    if (!(b & 0x80)) return 0;
  }
}

StreamRecordWalker::Step StreamRecordWalker::damaged(uint64_t offset, std::string what) {
  done_ = true;
  damage_offset_ = offset;
  damage_ = std::move(what);
  return Step::kDamaged;
}

StreamRecordWalker::Step StreamRecordWalker::cut(uint64_t record) {
  // A read error is said as such; else the file simply stops there.
  std::string what = damage_.empty() ? "the file ends inside this event (cut short)" : damage_;
  return damaged(record, std::move(what));
}

uint64_t StreamRecordWalker::first_nonzero(uint64_t from) const {
  uint8_t chunk[65536];
  for (;;) {
    ssize_t n = bytes_.read(from, chunk, sizeof chunk);
    if (n <= 0) return UINT64_MAX;
    const uint8_t* hit = std::find_if(chunk, chunk + n, [](uint8_t c) { return c != 0; });
    if (hit != chunk + n) return from + uint64_t(hit - chunk);
    from += uint64_t(n);
  }
}

StreamRecordWalker::Step StreamRecordWalker::next(StreamRecord& r) {
  if (done_) return damage_offset_ || !damage_.empty() ? Step::kDamaged : Step::kEnd;
  const uint64_t at = base_ + pos_;
  uint8_t lead = 0;
  if (!byte(lead)) {
    if (!damage_.empty()) return damaged(at, damage_);
    done_ = true;
    end_offset_ = at;
    zero_tail_ = false;
    return Step::kEnd;
  }
  if (lead == 0) {
    // The end of the data: what follows must be the zeroed tail.
    const uint64_t other = first_nonzero(at);
    if (other != UINT64_MAX)
      return damaged(other, fmt::format("byte 0x{:02x} after the end of the data (a zero byte at {})",
                                        [&] {
                                          uint8_t b = 0;
                                          return bytes_.read(other, &b, 1) == 1 ? b : 0;
                                        }(),
                                        at));
    done_ = true;
    end_offset_ = at;
    zero_tail_ = true;
    return Step::kEnd;
  }
  if (after_end_event_) return damaged(at, "an event after the end event");
  r = StreamRecord{};
  r.offset = at;
  r.lead = lead;
  const unsigned kind = lead & 3;
  if (kind == 0) return damaged(at, fmt::format("lead byte 0x{:02x} has kind 0", lead));
  r.delta = lead >> 3;
  if (lead & 4) {
    uint64_t more = 0;
    int v = varint(more);
    if (v == 1) return cut(at);
    if (v == 2 || (more >> 59) != 0) return damaged(at, "the time delta does not fit in 64 bits");
    r.delta |= more << 5;
  }
  time_ = r.delta > UINT64_MAX - time_ ? UINT64_MAX : time_ + r.delta;
  r.time = time_;
  if (kind == CKT_KIND_ENTER) {
    r.kind = StreamRecord::Kind::kEnter;
    int v = varint(r.id);
    if (v == 1) return cut(at);
    if (v == 2) return damaged(at, "the function id does not fit in 64 bits");
  } else if (kind == CKT_KIND_EXIT) {
    r.kind = StreamRecord::Kind::kExit;
  } else {
    int v = varint(r.subtype);
    if (v == 1) return cut(at);
    if (v == 2) return damaged(at, "the special event's subtype does not fit in 64 bits");
    switch (r.subtype) {
      case CKT_SPECIAL_DEFINE: {
        r.kind = StreamRecord::Kind::kDefine;
        v = varint(r.id);
        if (v == 1) return cut(at);
        if (v == 2) return damaged(at, "the function id does not fit in 64 bits");
        uint8_t a[8];
        for (uint8_t& b : a)
          if (!byte(b)) return cut(at);
        for (int i = 7; i >= 0; --i) r.address = r.address << 8 | a[i];
        break;
      }
      case CKT_SPECIAL_LOST:
        r.kind = StreamRecord::Kind::kLost;
        v = varint(r.count);
        if (v == 1) return cut(at);
        if (v == 2) return damaged(at, "the lost count does not fit in 64 bits");
        break;
      case CKT_SPECIAL_STACK: {
        r.kind = StreamRecord::Kind::kStack;
        v = varint(r.count);
        if (v == 1) return cut(at);
        if (v == 2) return damaged(at, "the frame count does not fit in 64 bits");
        // Each frame takes a byte at least: a count beyond the file is a lie.
        const uint64_t here = base_ + pos_, size = bytes_.size();
        if (r.count > (size > here ? size - here : 0))
          return damaged(at, fmt::format("a stack of {} frames in the {} bytes left", r.count,
                                         size > here ? size - here : 0));
        for (uint64_t i = 0; i < r.count; ++i) {
          uint64_t id = 0;
          v = varint(id);
          if (v == 1) return cut(at);
          if (v == 2) return damaged(at, fmt::format("stack frame {}: the function id does not fit in 64 bits", i));
          if (r.frames.size() < StreamRecord::kShownFrames) r.frames.push_back(id);
        }
        break;
      }
      case CKT_SPECIAL_END:
        r.kind = StreamRecord::Kind::kEnd;
        after_end_event_ = true;
        break;
      case CKT_SPECIAL_SYNC:
        r.kind = StreamRecord::Kind::kSync;
        v = varint(r.sync_counter);
        if (v == 0) v = varint(r.sync_offset);
        if (v == 1) return cut(at);
        if (v == 2) return damaged(at, "the sync event's fields do not fit in 64 bits");
        break;
      default:
        // Specials carry no length: one of an unknown subtype cannot be skipped.
        return damaged(at, fmt::format("special event of unknown subtype {}", r.subtype));
    }
  }
  r.size = base_ + pos_ - at;
  return Step::kRecord;
}

}  // namespace covkit::format
