#pragma once
// Reader of clang's indexed profiles (.profdata), what `llvm-profdata merge`
// writes: versions 4 to 9 (clang 13 and 14 write 7, 15 writes 8, 16 writes
// 9), always little-endian. Layout: a header (magic, version, an unused
// word, hash type, the hash table's offset; from version 8 the memory
// profile's, from 9 the binary ids' offsets), the profile summary (once, or
// twice for context-sensitive profiles), then the records of an on-disk
// chained hash table keyed by function name: per name, for each hash, the
// counters and a value profile record. The records are read in file order;
// the bucket table only bounds them.
#include <cstdint>
#include <span>
#include <vector>

#include "clang/profile_counts.h"
#include "util/expected.h"

namespace covkit::clang {

struct IndexedProfile {
  unsigned version = 0;
  uint64_t variant = 0;  // kVariant* flags
  std::vector<FunctionCounts> functions;
};

Expected<IndexedProfile> read_profdata(std::span<const uint8_t> bytes);
bool looks_like_profdata(std::span<const uint8_t> bytes);

inline constexpr uint64_t kIndexedMagic = 0x8169666f72706cffull;  // "\xfflprofi\x81"

}  // namespace covkit::clang
