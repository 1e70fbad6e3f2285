#pragma once
// Block files (block_file.h) into line coverage: each module's block
// addresses are placed in the control-flow graph covkit sample builds from
// its code (sample/module_cfg), the blocks they imply added (a block's
// dominators ran whenever it did; within a straight run of code the blocks
// after a hook's call ran too: sample/inference), and the blocks turned into
// lines and functions through the module's DWARF line table, as `covkit
// sample report` turns its evidence (sample/coverage_builder). Several files
// (runs, processes) add up.
#include <string>
#include <vector>

#include "blocks/block_file.h"
#include "model/project_coverage.h"
#include "util/expected.h"

namespace covkit::blocks {

struct BlockModuleSummary {
  std::string path;
  size_t entries = 0;        // block addresses the files gave
  size_t unplaced = 0;       // addresses in no function covkit found
  size_t blocks = 0, blocks_ran = 0;
  bool wrapped_counts = false;  // inline 8-bit counters: counts modulo 256
};

struct BlockCoverage {
  model::ProjectCov coverage;
  std::vector<BlockModuleSummary> modules;
  std::vector<std::string> warnings;  // one line each
};

struct BlockCoverageOptions {
  std::string source_root;  // absolute sources inside it are shown relative to it
};

// Errors: a file that cannot be read or parsed (named). A module that
// cannot be read is a warning and left out.
Expected<BlockCoverage> load_block_coverage(const std::vector<std::string>& files, const BlockCoverageOptions& options);

// The same of block files already read (a running process's inline
// counters: live_blocks.h); `name` says where each came from in warnings.
struct NamedBlockFile {
  std::string name;
  BlockFile file;
};
Expected<BlockCoverage> block_coverage_of(const std::vector<NamedBlockFile>& files, const BlockCoverageOptions& options);

}  // namespace covkit::blocks
