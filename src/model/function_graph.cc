#include "model/function_graph.h"

#include <vector>

#include "format/gcov_tags.h"

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
  size_t arcs = 0;
  for (const auto& rec : notes.arcs) arcs += rec.arcs.size();
  fn.arcs.reserve(arcs);
  fn.counts.reserve(arcs);
  // Each block's arc lists allocated once, at their size (grown arc by arc
  // they were reallocated for every block that joins or forks).
  std::vector<uint32_t> preds(fn.blocks.size(), 0);
  for (const auto& rec : notes.arcs)
    for (const auto& na : rec.arcs) ++preds[na.dst];
  for (size_t b = 0; b < fn.blocks.size(); ++b) fn.blocks[b].pred.reserve(preds[b]);

  for (const auto& rec : notes.arcs) {
    Block& src = fn.blocks[rec.src];
    src.id = rec.src;
    if (src.succ.empty()) src.succ.reserve(rec.arcs.size());
    bool mark_catches = false;
    for (const auto& na : rec.arcs) {
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
      src.succ.push_back(idx);
      fn.blocks[na.dst].pred.push_back(idx);
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

}  // namespace covkit::model
