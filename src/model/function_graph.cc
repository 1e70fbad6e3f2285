#include "model/function_graph.h"

#include <algorithm>
#include <functional>
#include <vector>

#include "format/gcov_tags.h"
#include "model/small_sort.h"

namespace covkit::model {

Function build_graph(const format::NotesFunction& notes) {
  Function fn;
  fn.name = notes.name;
  fn.ident = notes.ident;
  fn.lineno_checksum = notes.lineno_checksum;
  fn.cfg_checksum = notes.cfg_checksum;
  fn.artificial = notes.artificial;
  fn.start_line = notes.start_line;
  fn.start_column = notes.start_column;
  fn.end_line = notes.end_line;
  fn.end_column = notes.end_column;
  fn.blocks.resize(notes.num_blocks.value_or(0));
  const size_t arcs = notes.arc_list.size();
  fn.arcs.reserve(arcs);
  // Each block's successor and predecessor lists are views into one array
  // of the function's: every block's successors first, then every block's
  // predecessors, each list at the offset its size gives.
  const size_t nblocks = fn.blocks.size();
  // Counted in a buffer kept by the thread: two vectors per function were
  // two allocations for each of a large object's thousands of functions.
  thread_local std::vector<uint32_t> sizes;
  sizes.assign(2 * nblocks, 0);
  uint32_t* const succs = sizes.data();
  uint32_t* const preds = succs + nblocks;
  for (const format::NotesArcs& rec : notes.arcs) succs[rec.src] += rec.count;
  // A counter per arc not on the spanning tree, room made for exactly
  // those: room for every arc spread the heap (tinyxml2.cpp: ~20 KB never
  // written, between blocks that are).
  size_t counted = 0;
  for (const format::NotesArc& na : notes.arc_list) {
    ++preds[na.dst];
    counted += !(na.flags & format::kArcOnTree);
  }
  fn.counts.reserve(counted);
  fn.arc_lists.resize(2 * arcs);
  uint32_t* at = fn.arc_lists.data();
  for (size_t b = 0; b < nblocks; ++b) {
    fn.blocks[b].succ = std::span<uint32_t>(at, 0);
    at += succs[b];
  }
  for (size_t b = 0; b < nblocks; ++b) {
    fn.blocks[b].pred = std::span<uint32_t>(at, 0);
    at += preds[b];
  }
  auto append = [](std::span<uint32_t>& list, uint32_t idx) {
    list = std::span<uint32_t>(list.data(), list.size() + 1);
    list.back() = idx;
  };

  for (const auto& rec : notes.arcs) {
    Block& src = fn.blocks[rec.src];
    src.id = rec.src;
    bool mark_catches = false;
    for (const format::NotesArc& na : notes.arcs_of(rec)) {
      Arc a;
      a.src = rec.src;
      a.dst = na.dst;
      a.on_tree = na.flags & format::kArcOnTree;
      a.fake = na.flags & format::kArcFake;
      a.fall_through = na.flags & format::kArcFallthrough;
      if (a.fake) {
        if (rec.src != kEntryBlock) {
          // An exceptional exit: the source block must be a call.
          src.is_call_site = true;
          a.is_call_non_return = true;
          mark_catches = true;
        } else {
          // A non-local return into this function: the destination receives setjmp/catch.
          a.is_nonlocal_return = true;
          fn.blocks[na.dst].is_nonlocal_return = true;
        }
      }
      fn.blocks[na.dst].id = na.dst;
      if (!a.on_tree) fn.counts.push_back(0);
      uint32_t idx = uint32_t(fn.arcs.size());
      fn.arcs.push_back(a);
      append(src.succ, idx);
      append(fn.blocks[na.dst].pred, idx);
    }
    if (mark_catches) {
      // A call that can throw: its other non-fallthrough exits go to catch handlers.
      for (uint32_t idx : src.succ) {
        Arc& a = fn.arcs[idx];
        if (!a.fake && !a.fall_through) {
          a.is_throw = true;
          fn.has_catch = true;
        }
      }
    }
  }
  return fn;
}

void reset_to_notes(Function& fn) {
  fn.never_ran = false;
  std::fill(fn.counts.begin(), fn.counts.end(), 0);
  for (Arc& a : fn.arcs) {
    a.count = 0;
    a.count_valid = false;
    a.is_unconditional = false;
  }
  for (Block& b : fn.blocks) {
    b.count = 0;
    b.count_valid = false;
    b.exceptional = false;
    b.is_call_return = false;
    // Mostly one or two arcs; arc indices are unique, so stable or not is
    // one order (std::stable_sort past 32: crafted notes in descending
    // order made the insertion sort quadratic).
    small_stable_sort(b.succ, std::less<uint32_t>());
  }
}

}  // namespace covkit::model
