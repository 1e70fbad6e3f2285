#pragma once
// Targets of gcc's switch jump tables, read from the binary's data. Two
// patterns, both bounded by the `cmp idx, N; ja/jae default` before them:
//   non-PIE: jmp *table(,%idx,8)                       (8-byte absolute entries)
//   PIE:     lea table(%rip),%t; movslq (%t,%idx,4),%x; add %t,%x; jmp *%x
//                                                      (4-byte entries relative to the table)
// Anything else stays unresolved: the caller gives the block unknown
// successors rather than guessing.
#include <cstdint>
#include <optional>
#include <vector>

#include "sample/binary_image.h"
#include "sample/instruction_decoder.h"

namespace covkit::sample {

// The distinct targets of the indirect jump insns[jump], in table order,
// if it matches a pattern and every target lies in [lo, hi).
std::optional<std::vector<uint64_t>> resolve_jump_table(const BinaryImage& image,
                                                        const std::vector<DecodedInsn>& insns, size_t jump,
                                                        uint64_t lo, uint64_t hi);

}  // namespace covkit::sample
