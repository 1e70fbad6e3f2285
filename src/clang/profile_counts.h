#pragma once
// What clang's profiles hold, once read: per function (its PGO name and the
// hash of its control flow), one 64-bit counter per counted region of code.
// A .profraw holds one program's (or library's) run, a .profdata many runs
// merged; both become FunctionCounts, and ProfileCounts adds them up as
// `llvm-profdata merge` does.
#include <cstdint>
#include <string>
#include <string_view>
#include <span>
#include <unordered_map>
#include <vector>

namespace covkit::clang {

// The top byte of a profile's version word: how it was instrumented.
inline constexpr uint64_t kVariantMask = 0xff00000000000000ull;
inline constexpr uint64_t kVariantIrLevel = 1ull << 56;      // -fprofile-generate (IR), not the front end
inline constexpr uint64_t kVariantContextIr = 1ull << 57;    // context-sensitive IR
inline constexpr uint64_t kVariantEntryFirst = 1ull << 58;   // entry block counted first
inline constexpr uint64_t kVariantDebugInfo = 1ull << 59;    // -debug-info-correlate: names live in DWARF
inline constexpr uint64_t kVariantByteCoverage = 1ull << 60; // one byte per counter, 0 = covered
inline constexpr uint64_t kVariantEntryOnly = 1ull << 61;    // function entry only

struct FunctionCounts {
  std::string name;  // PGO name: mangled, or "file.c:static_name"
  uint64_t hash = 0;
  std::vector<uint64_t> counts;
};

// Functions by name, then hash: several builds of a function may share a
// profile (a header's inline function hashed differently by two compiles).
// Names are found by their NameRef (the MD5 bits records carry), compared
// in full on a hit.
class ProfileCounts {
 public:
  struct Entry {
    uint64_t hash = 0;
    std::vector<uint64_t> counts;
  };
  enum class Added { kNew, kMerged, kCountMismatch, kOverflow };

  // llvm-profdata merge's rules: counts of the same name and hash add up
  // (saturating at 2^64-1: kOverflow); a different number of counters
  // leaves the first one's (kCountMismatch).
  Added add(std::string_view name, uint64_t hash, std::span<const uint64_t> counts);
  // The same, `name_ref` being name_ref(name) (profile_names.h), as a
  // record gives it: no MD5 and no string hash per record.
  Added add(std::string_view name, uint64_t name_ref, uint64_t hash, std::span<const uint64_t> counts);
  // Where a function's counts of one hash are kept: add says it, and
  // add_at adds more to them without finding the name again (the runs of
  // one program list their functions in the same order: a report of 67
  // runs looks up 115,000 records by name, most of them a run before).
  struct Slot {
    uint32_t named = UINT32_MAX, entry = 0;
  };
  Added add(std::string_view name, uint64_t name_ref, uint64_t hash, std::span<const uint64_t> counts, Slot& at);
  // What add would do for the function and hash `at` holds (a slot add
  // gave for this profile).
  Added add_at(Slot at, std::span<const uint64_t> counts);

  enum class Found { kCounts, kUnknownFunction, kHashMismatch };
  struct Lookup {
    Found found = Found::kUnknownFunction;
    const std::vector<uint64_t>* counts = nullptr;
  };
  // A name the profile holds, but under other hashes only: llvm-cov 13 and
  // 14 call that a mismatch (the function left out). llvm-cov 15 and later
  // do so only when one of those hashes has the function's own
  // context-sensitive flag (bit 60); otherwise the function is one the
  // profile does not know, counted zero (a program that never ran, whose
  // main's hash happens to have bit 60 set).
  enum class MismatchRule { kAnyOtherHash, kSameContextFlag };
  Lookup find(std::string_view name, uint64_t hash, MismatchRule rule = MismatchRule::kSameContextFlag) const;
  Lookup find(std::string_view name, uint64_t name_ref, uint64_t hash,
              MismatchRule rule = MismatchRule::kSameContextFlag) const;

  // Every name, sorted (for writing files the same way every time).
  std::vector<std::string_view> names() const;
  const std::vector<Entry>* entries(std::string_view name) const;
  size_t functions() const { return functions_; }
  bool empty() const { return named_.empty(); }

  // The variant flags of the profiles added (kVariant*), and whether two
  // added profiles disagreed (front end against IR-level instrumentation).
  uint64_t variant = 0;
  bool variant_set = false;

 private:
  static constexpr uint32_t kNone = UINT32_MAX;
  struct Named {
    std::string name;
    std::vector<Entry> entries;
    uint32_t next = kNone;  // another name with the same NameRef
  };
  // The index in named_ of `name`, or kNone.
  uint32_t index_of(std::string_view name, uint64_t name_ref) const;
  std::vector<Named> named_;
  std::unordered_map<uint64_t, uint32_t> by_ref_;  // the first name of each NameRef
  size_t functions_ = 0;
};

}  // namespace covkit::clang
