#pragma once
// From what a function's coverage hooks counted to every block's state and
// count, and which blocks say nothing of a line (block_coverage.cc turns
// the states into lines).
//
// A hook counts the block it starts; the compiler leaves some blocks
// without one, and covkit's graph splits the hooked ones further (a block
// ends at every call, the hook's own included):
//  - straight runs: the rest of a block after the hook's call ran as often;
//  - one way in: a block that ran and that control enters from one block
//    only ran after it (clang leaves without a hook a block that dominates
//    its successors; in a function with computed-goto targets the graph
//    lets any line-table row be one, unless the labels whose address the
//    code takes are found);
//  - flow: where every hooked block's count is exact (trace-pc and
//    trace-pc-guard count every call; a hooked block not in the file did
//    not run), a block runs as often as control enters it and leaves it,
//    as gcov's solver reasons over its arcs: the block of a `break;` or
//    `goto` that gcc gives a jump of its own with no hook (the edge's
//    location, split into a block after the hooks were placed) ran
//    count(branch) - count(its hooked other way). Calls are assumed to
//    return (as the rest of the inference assumes); the successor of a
//    call that returns twice (setjmp, fork) and blocks entered from outside
//    get no equation, and a function whose equations disagree keeps what
//    the straight runs gave.
#include <cstdint>
#include <map>
#include <vector>

#include "sample/binary_image.h"
#include "sample/function_cfg.h"
#include "sample/inference.h"
#include "sample/line_table.h"

namespace covkit::blocks {

// Whether block `b` of `f` is only a coverage hook's call (and the setup of
// its argument): __sanitizer_cov_trace_pc or __sanitizer_cov_trace_pc_guard.
bool is_hook_block(const sample::FunctionCfg& f, const sample::BasicBlock& b);

// Which blocks of `f` control may enter other than by its edges: the
// entry, the roots the graph found, and where an indirect jump's targets
// are unknown, the blocks whose address the function's code takes (a
// computed goto's labels: `lea label(%rip)`, an immediate, or a table of
// them a `lea` names, read as sample reads jump tables); every candidate
// block (any line-table row) when it takes none.
std::vector<char> entered_unseen(const sample::BinaryImage& image, const sample::FunctionCfg& f);

// `observed`: block -> count the hooks gave (counts > 0). `exact`: the
// counts are calls counted one by one and a hook block absent from
// `observed` did not run (trace-pc, trace-pc-guard, nothing dropped).
// `unseen`: entered_unseen(). `states` comes from the inference
// (sample::infer_blocks); blocks are added and counts set.
void exact_counts(const sample::FunctionCfg& f, const std::map<int, int64_t>& observed, bool exact,
                  const std::vector<char>& unseen, std::vector<sample::BlockState>& states);

// Marks `lineless` the hook blocks no line-table row begins in: gcc gives
// the hook's call of an empty block (a join, the shared return) no
// location, so the call sits under the row of the code before it, a line
// that did not run when the join did. So is what follows such a hook on a
// straight run with no row of its own (the join's jump on).
void mark_lineless(const sample::FunctionCfg& f, const sample::LineTable& lines,
                   std::vector<sample::BlockState>& states);

}  // namespace covkit::blocks
