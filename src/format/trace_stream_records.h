#pragma once
// The records of one thread stream exactly as they are on disk, for
// `covkit trace dump --raw` (docs/trace-format.md, "Thread stream"): each
// event's offset, lead byte, raw delta and the counter it makes, ids as
// written (not resolved), every special with its fields. Nothing is checked
// beyond what it takes to find the next record, so that a damaged stream
// shows what it holds; what cannot be walked past stops the walk with the
// offset and the reason. Streams a window at a time: memory does not grow
// with the file.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "format/trace_stream_decoder.h"

namespace covkit::format {

struct StreamRecord {
  enum class Kind : uint8_t { kEnter, kExit, kDefine, kLost, kStack, kEnd, kSync };
  Kind kind = Kind::kEnter;
  uint64_t offset = 0;  // file offset of the lead byte
  uint64_t size = 0;    // bytes of the record
  uint8_t lead = 0;
  uint64_t delta = 0;   // as written (low 5 bits and the varint)
  uint64_t time = 0;    // the counter after it (saturated at 2^64 - 1)
  uint64_t subtype = 0; // specials: as written
  uint64_t id = 0;      // enter, define: the function id
  uint64_t address = 0; // define
  uint64_t count = 0;   // lost: events dropped; stack: frames
  uint64_t sync_counter = 0, sync_offset = 0;  // sync: as written
  std::vector<uint64_t> frames;  // stack: the first kShownFrames ids
  static constexpr size_t kShownFrames = 64;
};

class StreamRecordWalker {
 public:
  enum class Step {
    kRecord,  // `record` holds the next one
    kEnd,     // the data ended (end_offset(), zero_tail())
    kDamaged  // cannot go on: damage_offset(), damage()
  };

  // Walks `bytes` past the header; `start` is the header's start counter.
  StreamRecordWalker(const StreamBytes& bytes, uint64_t start, size_t window = size_t(1) << 16);

  Step next(StreamRecord& record);

  // After kEnd: the offset where the data ended, and whether a zero byte
  // (the unused tail of the file) rather than the end of the file ended it.
  uint64_t end_offset() const { return end_offset_; }
  bool zero_tail() const { return zero_tail_; }
  // After kDamaged: where (the start of the record that cannot be read,
  // or the first unexpected byte) and what.
  uint64_t damage_offset() const { return damage_offset_; }
  const std::string& damage() const { return damage_; }

 private:
  bool byte(uint8_t& b);
  // 0: read, 1: the file ends, 2: more than 64 bits.
  int varint(uint64_t& v);
  Step damaged(uint64_t offset, std::string what);
  Step cut(uint64_t record);  // the file ends inside the record at `record`
  // The first non-zero byte at or after `from`, or UINT64_MAX.
  uint64_t first_nonzero(uint64_t from) const;

  const StreamBytes& bytes_;
  std::vector<uint8_t> buf_;
  uint64_t base_ = 0;  // file offset of buf_[0]
  size_t pos_ = 0, end_ = 0;
  bool eof_ = false, done_ = false, after_end_event_ = false;
  uint64_t time_ = 0;
  uint64_t end_offset_ = 0, damage_offset_ = 0;
  bool zero_tail_ = false;
  std::string damage_;
};

}  // namespace covkit::format
