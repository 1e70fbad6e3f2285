#pragma once
// A block trace (block_trace.h) as text, `covkit blocks dump`'s output:
// a header saying how many events were kept and how many dropped, then one
// line per run of one block: the event's index, the module, the block's
// address, its function and source line (through the module's symbols and
// DWARF line table), and "xN" when it ran N times in a row.
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "blocks/block_trace.h"

namespace covkit::blocks {

struct BlockTraceTextOptions {
  bool addresses_only = false;  // no symbols or lines (no module is read)
};

// `out` receives the text in pieces; `warnings` a line per module that
// could not be read (its blocks are then shown by address only).
void write_block_trace_text(const BlockTrace& trace, const BlockTraceTextOptions& options,
                            const std::function<void(std::string_view)>& out, std::vector<std::string>& warnings);

}  // namespace covkit::blocks
