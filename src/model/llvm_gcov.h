#pragma once
// How llvm-cov gcov (LLVM 14), the reader of clang's --coverage files ("408*",
// GCC 4.8's layout), counts one object: arcs off the notes' spanning tree are
// measured, those on it are propagated; a block's count is the sum of the arcs
// leaving it; a line's count is the sum of the arcs entering its blocks from
// other lines, plus the cycles among its blocks (cancelled one at a time).
//
// Its rules differ from gcov's (model/gcov_session.h) where a line holds blocks
// of several functions, where a block's lines name another file (LLVM 14 files
// them all under the function's source) and where counts do not balance (fork,
// exit). gcov cannot read clang's notes, so for them llvm-cov is the reference
// and covkit computes what it computes.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "format/gcda.h"
#include "format/gcno.h"

namespace covkit::model {

struct LlvmArc {
  uint32_t src = 0, dst = 0;
  bool on_tree = false;
  bool fallthrough = false;  // to the next block in source order (for gcov's JSON)
  uint64_t count = 0;
  uint64_t cycle_count = 0;  // scratch of the cycle cancelling
};

struct LlvmBlock {
  uint64_t count = 0;
  std::vector<uint32_t> lines;       // in record order, whatever file they name
  std::vector<uint32_t> pred, succ;  // arc indices, in the order the arcs were read
  uint32_t last_line() const { return lines.back(); }
  // llvm-cov shows a block's arcs as branches on its last line, when it has several.
  bool branches_on(size_t line) const { return !lines.empty() && last_line() == line && succ.size() > 1; }
  // Scratch of the cycle search on a line: the block may still be entered;
  // the arc it was entered by (negative: not entered, or the search's start).
  bool traversable = false;
  int64_t incoming = -1;
};

struct LlvmFunction {
  uint32_t ident = 0, lineno_checksum = 0, cfg_checksum = 0;
  std::string name;
  uint32_t source = 0;  // index into LlvmObject::sources
  uint32_t start_line = 0;
  std::vector<LlvmBlock> blocks;
  std::vector<LlvmArc> arcs;          // as read; the exit-to-entry arc is added once counted
  std::vector<uint32_t> measured;     // the arcs off the tree, in counter order
  std::vector<uint32_t> tree;         // the arcs on it (the exit-to-entry arc last)
  std::vector<uint8_t> visited;       // by block: propagation reached it
  static constexpr uint32_t kExitBlock = 1;  // GCC 4.8's layout
  uint64_t entry_count() const { return blocks.empty() ? 0 : blocks.front().count; }
  // The counts of the arcs leaving `b`.
  uint64_t leaving(const LlvmBlock& b) const {
    uint64_t total = 0;
    for (uint32_t a : b.succ) total += arcs[a].count;
    return total;
  }
  // Blocks other than the entry and the exit that ran (llvm-cov's "blocks executed").
  uint64_t blocks_executed() const {
    uint64_t n = 0;
    for (size_t b = 1; b < blocks.size(); ++b)
      if (b != kExitBlock && blocks[b].count) ++n;
    return n;
  }
};

// One line of a source: the blocks that name it, in the order the functions'
// blocks were read (a block that names a line twice is there twice).
struct LlvmLine {
  std::vector<std::pair<uint32_t, uint32_t>> blocks;  // (function, block)
  uint64_t count = 0;
  bool exists = false;
};

struct LlvmSummary {
  std::string name;
  uint64_t lines = 0, lines_exec = 0;
  uint64_t branches = 0, branches_exec = 0, branches_taken = 0;
};

struct LlvmSource {
  std::string filename;
  std::vector<std::vector<uint32_t>> functions_at;  // by start line: function indices
  std::vector<LlvmLine> lines;                      // by line number
};

struct LlvmObject {
  std::vector<std::string> sources;  // file names in order of their first function
  std::vector<LlvmFunction> functions;
  uint32_t runs = 0, programs = 0;
  std::string errors;  // llvm-cov's stderr while reading the data file
};

// The notes as llvm-cov reads them (functions, blocks, arcs; no counts yet).
LlvmObject llvm_object_from_notes(const format::NotesFile& notes);

// Adds a data file's counts as llvm-cov's readGCDA does, stopping where it
// stops; what it would print goes to obj.errors.
void llvm_add_counts(LlvmObject& obj, const format::NotesFile& notes, const format::DataFile& data);

// llvm-cov's per-source tables: every function's blocks filed by line under
// the function's source; the summary of each function (its name per
// `demangle`), in order.
std::vector<LlvmSource> llvm_collect_functions(LlvmObject& obj, bool demangle,
                                               std::vector<LlvmSummary>* function_summaries);

// The count of each line of `src` and the source's summary (branches with
// `branches`).
LlvmSummary llvm_collect_source(LlvmObject& obj, LlvmSource& src, const std::string& display_name, bool branches);

// A function's name as llvm-cov prints it (Itanium demangling with -m).
std::string llvm_function_name(const LlvmFunction& f, bool demangle);

}  // namespace covkit::model
