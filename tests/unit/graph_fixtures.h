#pragma once
// Hand-built control-flow graphs for the model tests, as notes functions:
// block 0 is ENTRY, block 1 is EXIT, as GCC numbers them.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "format/gcno.h"
#include "format/gcov_tags.h"
#include "model/flow_solver.h"
#include "model/function_graph.h"

namespace covkit::testing {

inline constexpr uint32_t kTree = format::kArcOnTree;
inline constexpr uint32_t kFake = format::kArcFake;
inline constexpr uint32_t kFall = format::kArcFallthrough;

struct ArcDef {
  uint32_t src, dst, flags;
};

// Arcs are grouped into one ARCS record per source block, in order of first mention.
inline format::NotesFunction notes_function(uint32_t num_blocks, const std::vector<ArcDef>& arcs) {
  format::NotesFunction f;
  f.name = "f";
  f.source = "f.c";
  f.num_blocks = num_blocks;
  std::vector<uint32_t> sources;  // in order of first mention
  for (const ArcDef& a : arcs)
    if (std::find(sources.begin(), sources.end(), a.src) == sources.end()) sources.push_back(a.src);
  for (uint32_t src : sources) {
    f.begin_arcs(src);
    for (const ArcDef& a : arcs)
      if (a.src == src) f.add_arc(a.dst, a.flags);
  }
  return f;
}

// Builds the graph, fills the counters of the non-tree arcs (notes order) and solves it.
inline model::Function solved(const format::NotesFunction& notes, const std::vector<int64_t>& counters,
                              model::SolveProblems* problems = nullptr) {
  model::Function fn = model::build_graph(notes);
  fn.counts = counters;
  model::SolveProblems p = model::solve_flow_graph(fn);
  if (problems) *problems = p;
  if (fn.has_catch) model::find_exception_blocks(fn);
  return fn;
}

// The arc from `src` to `dst` (the first one, if there are several).
inline const model::Arc& arc(const model::Function& fn, uint32_t src, uint32_t dst) {
  for (const model::Arc& a : fn.arcs)
    if (a.src == src && a.dst == dst) return a;
  static model::Arc none;
  ADD_FAILURE() << "no arc " << src << "->" << dst;
  return none;
}

// --- graphs whose counts are known by construction -----------------------------

// if (c) A else B, run `calls` times with `then_count` taken to A.
//   0 -> 2; 2 -> 3 (then), 2 -> 4 (else, fallthrough); 3 -> 5; 4 -> 5; 5 -> 1
inline format::NotesFunction diamond() {
  return notes_function(6, {{0, 2, kFall}, {2, 3, 0}, {2, 4, kTree | kFall}, {3, 5, kTree}, {4, 5, kTree | kFall},
                            {5, 1, kTree}});
}

// while (cond) body;  0 -> 2 -> 3 (cond); 3 -> 4 (body); 4 -> 3; 3 -> 5 (exit); 5 -> 1.
// Counters: 0->2 (calls), 3->4 (iterations).
inline format::NotesFunction loop() {
  return notes_function(6, {{0, 2, kFall}, {2, 3, kTree | kFall}, {3, 4, 0}, {3, 5, kTree | kFall},
                            {4, 3, kTree}, {5, 1, kTree}});
}

// for (i..) for (j..) body;
//   2 init i; 3 cond i; 4 init j; 5 cond j; 6 body; 7 i++; 8 after.
// Counters: 0->2 (calls), 3->4 (outer iterations), 5->6 (inner iterations).
inline format::NotesFunction nested_loops() {
  return notes_function(9, {{0, 2, kFall},
                            {2, 3, kTree | kFall},
                            {3, 4, 0},
                            {3, 8, kTree | kFall},
                            {4, 5, kTree | kFall},
                            {5, 6, 0},
                            {5, 7, kTree | kFall},
                            {6, 5, kTree},
                            {7, 3, kTree},
                            {8, 1, kTree}});
}

// A call that may not return: 2 calls, returns to 3 (fallthrough); a fake
// arc 2 -> EXIT for the calls that never came back.
// Counters: 0->2 (calls), 2->3 (returns).
inline format::NotesFunction call_with_fake_exit() {
  return notes_function(4, {{0, 2, kFall}, {2, 3, kFall}, {2, 1, kTree | kFake}, {3, 1, kTree}});
}

// try { call(); } catch (...) { handler; }
//   2 the call; 3 normal return (fallthrough); 4 the catch handler (an
//   abnormal edge 2 -> 4); 2 -> 1 fake; 3 -> 5; 4 -> 5; 5 -> 1.
// Counters: 0->2 (calls), 2->3 (normal returns), 2->4 (throws caught).
inline format::NotesFunction call_with_catch() {
  return notes_function(6, {{0, 2, kFall},
                            {2, 3, kFall},
                            {2, 4, 0},
                            {2, 1, kTree | kFake},
                            {3, 5, kTree | kFall},
                            {4, 5, kTree},
                            {5, 1, kTree}});
}

// if (setjmp(buf) == 0) ...: a fake arc from ENTRY to the receiver block 3
// carries the longjmp returns. 0 -> 2 (fallthrough), 0 -> 3 (fake); 2 -> 3; 3 -> 1.
// Counters: 0->2 (calls), 0->3 (longjmps).
inline format::NotesFunction setjmp_receiver() {
  return notes_function(4, {{0, 2, kFall}, {0, 3, kFake}, {2, 3, kTree | kFall}, {3, 1, kTree}});
}

}  // namespace covkit::testing
