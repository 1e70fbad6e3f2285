#pragma once
// Reader of the block trace libcovkit-blocks writes beside its block file
// when COVKIT_BLOCKS_TRACE is set (runtime/blocks/block_contract.h,
// docs/covkit-blocks.md): the sequence of blocks the hooks saw, as 32-bit
// block ids, and each id's module and address. The file may be another
// user's: every line and length is checked; a damaged file gets an Error
// naming its line, never a crash or a read past its end.
#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <vector>

#include "util/expected.h"

namespace covkit::blocks {

struct TraceBlock {
  uint32_t module = 0;   // index in BlockTrace::modules
  uint64_t address = 0;  // in the module's file
};

struct TraceModule {
  std::string path;
  uint64_t bias = 0;
};

struct BlockTrace {
  int64_t pid = 0;
  uint64_t bound = 0;          // the most events the runtime would keep
  uint64_t dropped_past = 0;   // events after the bound was reached
  uint64_t dropped_lost = 0;   // events of addresses the runtime had no id for
  std::vector<TraceModule> modules;
  std::map<uint32_t, TraceBlock> blocks;  // id -> block
  std::vector<uint32_t> events;           // ids in order; 0: claimed, unwritten at exit
};

bool looks_like_block_trace(std::span<const uint8_t> bytes);
Expected<BlockTrace> parse_block_trace(std::span<const uint8_t> bytes);

}  // namespace covkit::blocks
