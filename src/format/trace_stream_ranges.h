#pragma once
// One thread stream cut at its restart points (`sync` events, version 2:
// docs/trace-format.md, "Reading in parallel"), so that its parts can be
// decoded on several cores. A part is decoded strictly: anything a front to
// back decode would warn about, stop at or read differently (an unknown or
// misplaced special, a zero byte, an id out of range, a time that wraps, a
// part that does not end exactly at the next restart point) makes it
// `unusual`, and the caller reads the stream front to back instead.
#include <cstdint>
#include <span>
#include <utility>
#include <vector>

#include "format/trace_stream_decoder.h"

namespace covkit::format {

struct StreamRestart {
  uint64_t offset = 0;  // of the sync event (the header's end for the first part)
  uint64_t time = 0;    // the counter there
};

// The stream's restart points in order, the first being the header's end
// with its start counter. Reads a few bytes at each multiple of the chunk
// size; a sync is taken only where its recorded offset is its own.
std::vector<StreamRestart> find_restarts(const StreamBytes& bytes, const StreamHeader& header);

// What a part says besides its enters and exits.
struct RangeSummary {
  bool unusual = false;
  uint64_t lost = 0;
  std::vector<std::pair<uint64_t, uint64_t>> defines;  // (id, address), in order
  std::vector<uint64_t> needed;  // ids entered before the part defined them: defined by an earlier part
  uint64_t end_time = 0;         // the counter where the part ends
};

// Ids of enters that the strict decoder passes on are below this.
inline constexpr uint64_t kRangeMaxId = uint64_t(1) << 20;

// Decodes the enters and exits of [from.offset, to.offset) a block at a
// time (exits of frames opened before the part included); ids are not
// resolved (their define may be in an earlier part): events carry fn_id and
// no address. Memory: one window of the file.
class RangeDecoder {
 public:
  RangeDecoder(const StreamBytes& bytes, const StreamRestart& from, const StreamRestart& to);
  // Up to out.size() events; 0 at the end of the part (or once unusual).
  size_t next(std::span<TraceEvent> out);
  // Complete once next() returned 0.
  const RangeSummary& summary() const { return s_; }

 private:
  bool refill();
  bool special(const uint8_t*& p);

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

}  // namespace covkit::format
