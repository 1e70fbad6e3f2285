// The layout of block stepping's decode cache (src/runtime/sample/
// sample_runtime.h, struct cks_decoded). The handler meets each entry cold,
// the program having filled the caches with its own data since the last
// tick: an entry must be one cache line, every entry on a line of its own,
// and what a lookup reads first (the bytes compared, the length) must not
// pull in a second line.
#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>

#include "sample_runtime.h"

namespace {

constexpr std::size_t kLine = 64;

TEST(SampleDecodeEntry, IsOneCacheLine) {
  EXPECT_EQ(kLine, sizeof(cks_thread::cks_decoded));
  EXPECT_EQ(kLine, alignof(cks_thread::cks_decoded));
  EXPECT_EQ(0u, offsetof(cks_thread, decoded) % kLine);
  EXPECT_EQ(32u, sizeof(cks_emu_insn));
}

TEST(SampleDecodeEntry, LookupReadsOneLine) {
  // the bytes, the length that bounds their comparison and the step's
  // facts all lie in the entry's own line
  EXPECT_LT(offsetof(cks_thread::cks_decoded, bytes) + 15, kLine);
  EXPECT_LT(offsetof(cks_thread::cks_decoded, emu) + offsetof(cks_emu_insn, length), kLine);
  EXPECT_LT(offsetof(cks_thread::cks_decoded, emu) + sizeof(cks_emu_insn), kLine + 1);
}

TEST(SampleDecodeEntry, IndexSetsAreAPowerOfTwoOfPairs) {
  // two ways a set, sets found by masking the address's hash; an index
  // value is an entry's number + 1 (0: empty)
  constexpr std::size_t sets = sizeof(cks_thread::decoded_index) / sizeof(cks_thread::decoded_index[0]);
  constexpr std::size_t entries = sizeof(cks_thread::decoded) / sizeof(cks_thread::decoded[0]);
  EXPECT_EQ(0u, sets & (sets - 1));
  EXPECT_EQ(2u, sizeof(cks_thread::decoded_index[0]) / sizeof(cks_thread::decoded_index[0][0]));
  EXPECT_LE(entries + 1, 65536u);
  EXPECT_GE(entries, 4096u); // bzip2's hot code alone holds ~2,000 instructions
}

}  // namespace
