#include "format/trace_stream_ranges.h"

#include <algorithm>
#include <cstring>

namespace covkit::format {

namespace {

// How far past a chunk's start its sync may be: after the bytes of the event
// that crossed the boundary (the runtime's events are at most CKT_MAX_EVENT).
constexpr size_t kSyncSearch = 48;
constexpr size_t kWindow = size_t(1) << 20;

// A sync event at p (n bytes readable) recorded at file offset `at`.
bool sync_at(const uint8_t* p, size_t n, uint64_t at, uint64_t& time) {
  if (n < 3 || p[0] != CKT_KIND_SPECIAL || p[1] != CKT_SPECIAL_SYNC) return false;
  uint8_t event[kRangeMaxEvent] = {};
  std::memcpy(event, p, std::min(n, kRangeMaxEvent));
  const uint8_t* q = event + 2;
  uint64_t offset = 0;
  return range_varint(q, time) && q - event <= 22 && range_varint(q, offset) && q - event <= 22 && offset == at;
}

}  // namespace

RestartFinder::RestartFinder(const StreamBytes& bytes, const StreamHeader& header)
    : bytes_(bytes), chunk_(header.chunk), size_(bytes.size()), start_(header.start) {}

std::optional<StreamRestart> RestartFinder::next() {
  if (at_ == 0) {
    at_ = chunk_ < kSyncSearch ? size_ : chunk_;  // no restart points without a chunk size to find them by
    return StreamRestart{kTraceHeaderSize, start_};
  }
  uint8_t look[kSyncSearch + kRangeMaxEvent];
  for (; at_ + 3 <= size_; at_ += chunk_) {
    if (advised_ < size_ && at_ + kRestartReadAhead / 2 >= advised_) {
      // Half the distance covered: the next half is asked for, so that the
      // disk always has the chunks ahead to read.
      const uint64_t to = std::min(size_, at_ + kRestartReadAhead);
      bytes_.will_need(advised_, size_t(to - advised_));
      advised_ = to;
    }
    const ssize_t n = bytes_.read(at_, look, sizeof look);
    if (n < 3) break;
    for (size_t i = 0; i < kSyncSearch && i + 3 <= size_t(n); ++i) {
      uint64_t time = 0;
      if (sync_at(look + i, size_t(n) - i, at_ + i, time)) {
        const StreamRestart found{at_ + i, time};
        at_ += chunk_;
        return found;
      }
    }
  }
  at_ = size_;
  return std::nullopt;
}

RangeDecoder::RangeDecoder(const StreamBytes& bytes, const StreamRestart& from, const StreamRestart& to)
    : bytes_(bytes), to_(to), base_(from.offset), time_(from.time) {
  // No larger than the part: small chunks make many parts.
  buf_.resize(size_t(std::min<uint64_t>(kWindow, to.offset - from.offset + kRangeMaxEvent)) + kRangeMaxEvent);
  s_.end_time = from.time;
}

// Keeps the unread bytes and reads up to the part's end behind them, with
// kRangeMaxEvent zero bytes of margin, so that an event is decoded without bounds
// checks (a part's events end at to_.offset; a read past it is unusual).
bool RangeDecoder::refill() {
  const size_t keep = end_ - pos_;
  std::memmove(buf_.data(), buf_.data() + pos_, keep);
  base_ += pos_;
  pos_ = 0;
  end_ = keep;
  const uint64_t want = std::min<uint64_t>(buf_.size() - kRangeMaxEvent - keep, to_.offset - (base_ + keep));
  size_t got = 0;
  while (got < want) {
    const ssize_t n = bytes_.read(base_ + keep + got, buf_.data() + keep + got, size_t(want - got));
    if (n <= 0) return false;
    got += size_t(n);
  }
  end_ += got;
  std::fill(buf_.begin() + ptrdiff_t(end_), buf_.begin() + ptrdiff_t(end_ + kRangeMaxEvent), 0);
  return true;
}

void RangeDecoder::first_use(uint64_t id) {
  if (id >= ids_.size()) ids_.resize(std::max<size_t>(id + 1, ids_.size() * 2), 0);
  if (ids_[id] == 0) {  // used before any define of this part
    ids_[id] = 2;
    s_.needed.push_back(id);
  }
}

// A special inside a part: define, lost, or a sync that agrees with the
// time (a chunk whose own sync was not found). Others are unusual: a stack
// (only at the stream's start), an end (only in the last part).
const uint8_t* RangeDecoder::special(const uint8_t* p) {
  uint64_t subtype = 0, a = 0, b = 0;
  if (!range_varint(p, subtype)) return nullptr;
  if (subtype == CKT_SPECIAL_DEFINE) {
    if (!range_varint(p, a)) return nullptr;
    uint64_t address = 0;
    for (int i = 0; i < 8; ++i) address |= uint64_t(p[i]) << (8 * i);
    p += 8;
    s_.defines.emplace_back(a, address);
    if (a < kRangeMaxId) {
      if (a >= ids_.size()) ids_.resize(std::max<size_t>(a + 1, ids_.size() * 2), 0);
      if (ids_[a] == 0) ids_[a] = 1;
    }
    return p;
  }
  if (subtype == CKT_SPECIAL_LOST) {
    if (!range_varint(p, a)) return nullptr;
    s_.lost = a > UINT64_MAX - s_.lost ? UINT64_MAX : s_.lost + a;
    return p;
  }
  if (subtype == CKT_SPECIAL_SYNC) return range_varint(p, a) && range_varint(p, b) ? p : nullptr;
  return nullptr;
}

bool StreamIds::add(const RangeSummary& part) {
  for (uint64_t id : part.needed)
    if (id >= defined_.size() || !defined_[id]) return false;
  for (const auto& [id, address] : part.defines)
    if (!define(id, address)) return false;
  return true;
}

bool StreamIds::define(uint64_t id, uint64_t address) {
  if (id == 0 || id >= kRangeMaxId) return false;
  if (id >= defined_.size()) {
    defined_.resize(id + 1, 0);
    address_.resize(id + 1, 0);
  }
  if (defined_[id] && address_[id] != address) return false;
  defined_[id] = 1;
  address_[id] = address;
  return true;
}

std::vector<std::pair<uint64_t, uint64_t>> StreamIds::defines() const {
  std::vector<std::pair<uint64_t, uint64_t>> out;
  for (size_t id = 0; id < defined_.size(); ++id)
    if (defined_[id]) out.emplace_back(id, address_[id]);
  return out;
}

}  // namespace covkit::format
