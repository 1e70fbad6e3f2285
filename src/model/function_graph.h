#pragma once
// The control-flow graph of one instrumented function with its counts: the
// model that every view (gcov text, JSON, reports) is computed from.
// Block 0 is the entry block and block 1 the exit block, as in GCC.
#include <algorithm>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "format/gcno.h"

namespace covkit::model {

inline constexpr uint32_t kEntryBlock = 0;
inline constexpr uint32_t kExitBlock = 1;

struct Arc {
  uint32_t src = 0;
  uint32_t dst = 0;
  int64_t count = 0;
  bool count_valid = false;   // the solver's bookkeeping (where every counter is 0, set on the counted
                              // arcs only: the tree arcs are not propagated)
  bool on_tree = false;       // not instrumented: solved from the others
  bool fake = false;          // exceptional exit (from a call) or setjmp entry (from ENTRY)
  bool fall_through = false;
  bool is_throw = false;            // to a catch handler
  bool is_call_non_return = false;  // the fake exit of a call that may not return
  bool is_nonlocal_return = false;  // the fake entry of a setjmp/catch receiver
  bool is_unconditional = false;    // the only non-fake successor
};

// The source lines of a block in one file (a block can span files: headers, #line).
struct BlockLocation {
  uint32_t source = 0;  // index into the owner's source table
  std::span<uint32_t> lines;  // a piece of the function's line_list
};

// A block's lists are views into arrays its function owns (one allocation
// per function, not three per block: reading a large object was
// allocation-bound).
struct Block {
  uint32_t id = 0;  // own index once an arc names it (gcov prints it with -w)
  std::span<uint32_t> succ;  // arc indices, sorted by destination block
  std::span<uint32_t> pred;  // arc indices, in the order the notes file lists them
  int64_t count = 0;
  bool count_valid = false;
  bool exceptional = false;     // reachable only through exceptional arcs
  bool is_call_site = false;    // ends in a call that may throw or not return
  bool is_call_return = false;  // the artificial block a call returns to
  bool is_nonlocal_return = false;
  std::span<BlockLocation> locations;
};

struct Function {
  std::string name;  // mangled
  uint32_t ident = 0;
  uint32_t lineno_checksum = 0;
  uint32_t cfg_checksum = 0;
  bool artificial = false;
  bool has_catch = false;
  uint32_t source = 0;  // index into the owner's source table
  uint32_t start_line = 0, start_column = 0, end_line = 0, end_column = 0;
  // Set by solve_flow_graph when every counter is 0 (the function never ran
  // in this program): every count is 0, and so is every line's.
  bool never_ran = false;

  std::vector<Block> blocks;
  std::vector<Arc> arcs;
  // One counter per instrumented (non-tree) arc, in notes order.
  std::vector<int64_t> counts;
  // What the blocks' views show: every block's successor then predecessor
  // arc indices, and every block's locations, block by block, and what
  // the locations' views show: their lines, in the notes' order.
  std::vector<uint32_t> arc_lists;
  std::vector<BlockLocation> location_list;
  std::vector<uint32_t> line_list;

  Function() = default;
  // Moved, the arrays keep their storage and the views stay valid; a copy
  // would view the original's, so there is none.
  Function(Function&&) noexcept = default;
  Function& operator=(Function&&) noexcept = default;
  Function(const Function&) = delete;
  Function& operator=(const Function&) = delete;

  uint32_t real_block_count() const { return blocks.size() >= 2 ? uint32_t(blocks.size() - 2) : 0; }
};

// Builds the graph of `notes`. `source_of` maps the function's file name,
// `location_source_of` a location's file (an index into the notes file's
// `files`), to a source index; they are called in the order the notes file
// mentions names.
template <typename SourceOf, typename LocationSourceOf>
Function build_function(const format::NotesFunction& notes, SourceOf&& source_of,
                        LocationSourceOf&& location_source_of);

// Non-template part of build_function: blocks, arcs and flags.
Function build_graph(const format::NotesFunction& notes);

// Puts back what counting and solving changed in a graph build_function
// made: the counters, the counts and flags the flow solver sets
// (solve_flow_graph, find_exception_blocks), never_ran, and each block's
// successors in the notes' order, which is the order of their arc indices
// (the solver sorts them by destination, and gives the counters out in the
// order it finds them). The graph is then what reading its notes again
// gives (a location's lines are sorted as read: nothing changes them).
void reset_to_notes(Function& fn);

// Gives each block its view of `fn.location_list` (a block may have several
// LINES records) and each location its view of `fn.line_list`, a copy of
// the notes' lines, each location's sorted; `source_of(file)` maps a
// location's file.
template <typename LocationSourceOf>
void place_locations(Function& fn, const format::NotesFunction& notes, LocationSourceOf&& source_of) {
  thread_local std::vector<uint32_t> per_block;  // kept: one allocation per function less
  per_block.assign(fn.blocks.size(), 0);
  for (const format::NotesLines& rec : notes.lines) per_block[rec.block] += rec.count;
  fn.location_list.resize(notes.location_list.size());
  fn.line_list = notes.line_list;
  size_t at = 0;
  for (size_t b = 0; b < fn.blocks.size(); ++b) {
    fn.blocks[b].locations = std::span<BlockLocation>(fn.location_list.data() + at, 0);
    at += per_block[b];
  }
  for (const format::NotesLines& rec : notes.lines) {
    std::span<BlockLocation>& view = fn.blocks[rec.block].locations;
    for (const format::NotesLocation& loc : notes.locations_of(rec)) {
      view = std::span<BlockLocation>(view.data(), view.size() + 1);
      view.back() = BlockLocation{source_of(loc.file), std::span<uint32_t>(fn.line_list.data() + loc.first, loc.count)};
      // Sorted as read, whether a session processes the function or not:
      // graphs handed from one object's session to the next are then the
      // same whatever the first did. Nearly always in order already
      // (334,000 locations in zstd's report): a look instead of a sort call each.
      std::span<uint32_t> lines = view.back().lines;
      if (!std::is_sorted(lines.begin(), lines.end())) std::sort(lines.begin(), lines.end());
    }
  }
}

template <typename SourceOf, typename LocationSourceOf>
Function build_function(const format::NotesFunction& notes, SourceOf&& source_of,
                        LocationSourceOf&& location_source_of) {
  Function fn = build_graph(notes);
  fn.source = source_of(notes.source);
  place_locations(fn, notes, location_source_of);
  return fn;
}

}  // namespace covkit::model
