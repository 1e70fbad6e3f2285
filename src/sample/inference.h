#pragma once
// From blocks seen to run, the blocks that must have run too:
//  - dominators: executed(B) => every dominator of B ran (sound, given a
//    correct CFG and that the function was entered at its entry);
//  - shye: also every post-dominator, on the CFG whose exits are rets, tail
//    calls, noreturn calls and unknown jumps (Shye et al.'s inference; wrong
//    when a call does not return: longjmp, exit deep inside, exceptions);
//  - sound: post-dominators too, but every block ending in a call is a
//    possible exit, so the inference never crosses a call.
// Implications chain (a post-dominator's dominators ran too), so they are
// applied until nothing changes. A block's count is an estimate: the
// number of samples whose evidence covered it, raised to the largest count
// of any block that implies it (a dominator or post-dominator of a block
// runs whenever it does).
#include <cstdint>
#include <map>
#include <string_view>
#include <optional>
#include <vector>

#include "sample/function_cfg.h"

namespace covkit::sample {

enum class InferenceMode { none, dominators, shye, sound };

std::string_view inference_mode_name(InferenceMode mode);
std::optional<InferenceMode> parse_inference_mode(std::string_view name);

struct BlockState {
  bool observed = false;  // the evidence showed it ran
  bool executed = false;  // observed, or implied by an observed block
  int64_t count = 0;
  // Its code stands for no line (covkit blocks: a coverage hook's call the
  // compiler gave no location of its own): placing it on lines says nothing.
  bool lineless = false;
};

// observed: block index -> number of samples that showed it. `window`:
// the evidence comes from a window of the run (a process attached while it
// ran, --pid), so a block's dominators may have run before it opened and
// are never inferred; what runs after a block seen in the window does run
// in it: every mode but `none` infers the sound post-dominators instead
// (shye's for shye).
std::vector<BlockState> infer_blocks(const FunctionCfg& cfg, const std::map<int, int64_t>& observed,
                                     InferenceMode mode, bool window = false);

}  // namespace covkit::sample
