#pragma once
// The execution count of one source line from the blocks placed on it.
// Summing block counts would over-count a line whose blocks run in sequence;
// instead the count is what enters the line's blocks from elsewhere plus the
// traffic of every loop made only of the line's blocks (its elementary
// circuits, enumerated as Hawick and James do), as gcov computes it.
#include <cstdint>
#include <span>

#include "model/function_graph.h"

namespace covkit::model {

struct LineBlockRef {
  const Function* fn = nullptr;
  uint32_t block = 0;
  bool operator==(const LineBlockRef&) const = default;
};

// `blocks` in the order they were attached to the line (duplicates allowed).
int64_t line_count_from_blocks(std::span<const LineBlockRef> blocks);

}  // namespace covkit::model
