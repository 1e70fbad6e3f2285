#pragma once
// Reader of the block files libcovkit-blocks writes at exit
// (runtime/blocks/block_contract.h, docs/covkit-blocks.md): per module of
// the process, the addresses of the basic blocks that -fsanitize-coverage
// instrumented and how often each ran. Every line is checked; a damaged or
// hostile file gets an Error naming its line, never a crash.
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "util/expected.h"

namespace covkit::blocks {

enum class BlockKind : char {
  kCount = 'b',   // counted by a hook (trace-pc, trace-pc-guard): exact
  kWrapped = 'w', // an inline 8-bit counter: the count modulo 256
  kFlag = 'f',    // an inline bool flag: 1 ran, 0 did not
};

struct BlockEntry {
  uint64_t address = 0;  // in the module's file (the process's address less the bias)
  uint64_t count = 0;
  BlockKind kind = BlockKind::kCount;
};

struct BlockModule {
  std::string path;
  uint64_t bias = 0;
  std::vector<BlockEntry> blocks;
};

struct BlockFile {
  int64_t pid = 0;
  // What the runtime could not keep: trace-pc addresses with no room in its
  // table, guards beyond its array, inline counter sets without a pc table,
  // counter sets whose pc table had another length, block trace events
  // not kept (past its bound, or of an address without an id), blocks of
  // modules unloaded before exit.
  uint64_t dropped_pcs = 0, dropped_guards = 0, unpaired_counters = 0, mismatched_tables = 0, dropped_trace = 0,
           unmapped_blocks = 0;
  std::vector<BlockModule> modules;
};

bool looks_like_block_file(std::span<const uint8_t> bytes);
Expected<BlockFile> parse_block_file(std::string_view text);

}  // namespace covkit::blocks
