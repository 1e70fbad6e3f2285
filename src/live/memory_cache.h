#pragma once
// Another process's memory read in blocks and kept: finding libgcov's
// records reads thousands of small pieces (a record per function, file
// names in steps), one system call each; read through this cache they cost
// one call per 64 KiB block they fall in. A block never crosses the edge of
// a readable mapping (the next page may be absent); a block that cannot be
// read is left to the underlying source, piece by piece, whose errors name
// the address. Only for what does not change while it is read: the records
// (covkit reads the counters themselves, which move, straight from the
// process, in the stop).
#include <cstdint>
#include <map>
#include <vector>

#include "live/memory_source.h"
#include "live/process_maps.h"

namespace covkit::live {

class CachedMemory : public MemorySource {
 public:
  CachedMemory(const MemorySource& source, const std::vector<Mapping>& maps);
  Expected<void> read(uint64_t address, void* out, size_t len) const override;

  static constexpr uint64_t kBlock = 64 * 1024;

 private:
  // The block holding `address` (its start, its bytes), fetched if needed;
  // nullptr when it cannot be read as a block.
  const std::vector<uint8_t>* block(uint64_t address, uint64_t& start) const;

  const MemorySource& source_;
  std::vector<std::pair<uint64_t, uint64_t>> readable_;  // sorted [start, end)
  mutable std::map<uint64_t, std::vector<uint8_t>> blocks_;  // by start; empty: unreadable
};

}  // namespace covkit::live
