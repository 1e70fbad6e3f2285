#pragma once
// The inline counters of a running process built with clang's
// -fsanitize-coverage=inline-8bit-counters or inline-bool-flag with
// pc-table: no runtime keeps them (whatever implements the registration
// hooks, clang's sanitizer runtime or libcovkit-blocks), the compiler puts
// them in each module's __sancov_cntrs (or __sancov_bools) section and the
// block addresses in __sancov_pcs. They are found through each module's
// file (live/module_file: the mapping's own device and inode), checked
// against the module's memory, and read with every thread stopped (or not),
// as a block file (block_file.h) the runtime would write at exit.
//
// The process may be hostile: every section must lie inside its module's
// mapped memory, the table must have an entry per counter, each address
// must be in the module's code; else one line naming the module and what
// is wrong, and nothing is reported.
#include <sys/types.h>

#include <chrono>
#include <string>
#include <vector>

#include "blocks/block_file.h"
#include "live/memory_source.h"
#include "live/snapshot.h"
#include "util/expected.h"

namespace covkit::blocks {

// Where one module's inline counters live (absolute addresses).
struct InlineSections {
  uint64_t counters = 0, counters_size = 0;  // a byte per block
  bool flags = false;                        // __sancov_bools: 0/1 flags, not counts
  uint64_t pcs = 0, pcs_size = 0;            // (address, flags) pairs of 8 bytes each
};

// Sizes and bounds checked before any stop.
Expected<void> check_inline_sections(const InlineSections& s, const live::ModuleBounds& bounds);

// One module's blocks, read through `memory` (check_inline_sections passed):
// each counter with its block's address less `bias`.
Expected<BlockModule> read_inline_module(const std::string& path, uint64_t bias, const InlineSections& s,
                                         const live::ModuleBounds& bounds, const live::MemorySource& memory);

// One module's counters as read, kept for undoing a reset.
struct InlineRead {
  std::string path;
  uint64_t bias = 0;
  InlineSections sections;
  std::vector<uint8_t> bytes;
};

struct LiveBlocks {
  BlockFile file;  // as the runtime would write it now: inline counters only
  bool stopped = false;
  size_t threads = 0;
  std::chrono::nanoseconds pause{0};
  std::vector<InlineRead> reset;  // with `reset`: what was read, then zeroed
};

// Find (while it runs), stop, find again and read, resume. kNoCoverage
// when no module has inline counters with a pc table. With `reset` (only
// with `stop`), the counters are zeroed in the same stop, after the read:
// a block then counts what ran after it.
Expected<LiveBlocks, live::SnapshotError> capture_live_blocks(pid_t pid, bool stop, bool reset = false);

// Gives back what a reset took (its outputs could not be written): in a new
// stop, each counter gets what it counted since the reset plus what was
// read (modulo 256, as the counter itself wraps), each flag stays set if it
// was set then or is now. Refused, changing nothing, when a module is no
// longer where its counters were read (the process exec'd or unloaded it).
Expected<void, live::SnapshotError> undo_live_reset(pid_t pid, const LiveBlocks& taken);

}  // namespace covkit::blocks
