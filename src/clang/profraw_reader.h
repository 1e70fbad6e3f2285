#pragma once
// Reader of clang's raw profiles (.profraw), what a program built with
// -fprofile-instr-generate writes when it exits: versions 7 (clang 13) and
// 8 (clang 14 to 16), 64- or 32-bit pointers, either byte order (the magic
// tells; the other order is swapped). One file may hold several profiles
// back to back (LLVM_PROFILE_FILE with %m, or a program and its shared
// libraries writing one file); each is read in turn.
//
// Layout of one profile: a header of 11 u64 words; binary ids (u64 length,
// bytes, padding to 8); the data records (NameRef, hash, counter pointer,
// function pointer, value pointer, counter count, value sites); padding;
// the counters; padding; the names (profile_names.h); padding to 8; value
// profile records, skipped (coverage does not use them).
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "clang/profile_counts.h"
#include "util/expected.h"

namespace covkit::clang {

struct RawProfile {
  unsigned version = 0;     // 7 or 8
  uint64_t variant = 0;     // kVariant* flags
  bool big_endian = false;
  unsigned pointer_bytes = 8;
  std::vector<std::string> binary_ids;  // lower-case hex (GNU build ids)
  std::vector<FunctionCounts> functions;
};

class NameTable;
class NameTableCache;

// Every profile in `bytes`, or the first error (with its byte offset).
// `names`: decoded names shared with other files (profile_names.h).
Expected<std::vector<RawProfile>> read_profraw(std::span<const uint8_t> bytes, NameTableCache* names = nullptr);

// The same profiles checked as read_profraw checks them, each function's
// counters left where they lie in `bytes` (which must outlive them): a
// report adds up 67 profiles without a string and a vector per function
// of each.
struct RawRecord {
  std::string_view name;  // in the profile's `names`
  uint64_t name_ref = 0;  // name_ref(name), as the record gave it
  uint64_t hash = 0;
  std::span<const uint8_t> counters;  // counter_bytes each, in the profile's byte order
};
struct RawProfileRecords {
  RawProfile header;  // all but its functions
  unsigned counter_bytes = 8;  // 1: byte coverage (0 says "ran")
  std::shared_ptr<const NameTable> names;
  std::vector<RawRecord> records;
};
Expected<std::vector<RawProfileRecords>> scan_profraw(std::span<const uint8_t> bytes,
                                                     NameTableCache* names = nullptr);
// A record's counters as counts, into `out` (replaced).
void record_counts(const RawProfileRecords& profile, const RawRecord& record, std::vector<uint64_t>& out);

// Whether `bytes` starts like a raw profile (either byte order, 32 or 64
// bits): what file-type detection asks.
bool looks_like_profraw(std::span<const uint8_t> bytes);

}  // namespace covkit::clang
