#pragma once
// Record tags and arc flags of GCC's .gcno/.gcda formats (see GCC's gcov-io.h).
#include <cstdint>

namespace covkit::format {

inline constexpr uint32_t kNotesMagic = 0x67636e6f;  // "gcno"
inline constexpr uint32_t kDataMagic = 0x67636461;   // "gcda"

inline constexpr uint32_t kTagFunction = 0x01000000;
inline constexpr uint32_t kTagBlocks = 0x01410000;
inline constexpr uint32_t kTagArcs = 0x01430000;
inline constexpr uint32_t kTagLines = 0x01450000;
inline constexpr uint32_t kTagCounterBase = 0x01a10000;  // counter k at base + (k << 17)
inline constexpr uint32_t kTagArcCounters = kTagCounterBase;
inline constexpr uint32_t kTagObjectSummary = 0xa1000000;
inline constexpr uint32_t kTagProgramSummary = 0xa3000000;  // GCC <= 8

inline constexpr uint32_t kArcOnTree = 1;       // not instrumented: solved from the others
inline constexpr uint32_t kArcFake = 2;         // exceptional exit or setjmp entry
inline constexpr uint32_t kArcFallthrough = 4;  // the non-branching successor

// GCC's GCOV_TAG_IS_SUBTAG: whether `sub` belongs inside record `tag`.
constexpr uint32_t tag_mask(uint32_t tag) { return (tag - 1) ^ tag; }
constexpr bool tag_is_subtag(uint32_t tag, uint32_t sub) {
  return (tag_mask(tag) >> 8) == tag_mask(sub) && !((sub ^ tag) & ~tag_mask(tag));
}

}  // namespace covkit::format
