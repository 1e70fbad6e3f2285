#include "sample/inference.h"

#include <array>

#include "sample/dominators.h"

namespace covkit::sample {

std::string_view inference_mode_name(InferenceMode mode) {
  switch (mode) {
    case InferenceMode::none: return "none";
    case InferenceMode::dominators: return "dominators";
    case InferenceMode::shye: return "shye";
    case InferenceMode::sound: return "sound";
  }
  return "none";
}

std::optional<InferenceMode> parse_inference_mode(std::string_view name) {
  for (InferenceMode m : {InferenceMode::none, InferenceMode::dominators, InferenceMode::shye, InferenceMode::sound})
    if (inference_mode_name(m) == name) return m;
  return std::nullopt;
}

std::vector<BlockState> infer_blocks(const FunctionCfg& cfg, const std::map<int, int64_t>& observed,
                                     InferenceMode mode, bool window) {
  std::vector<BlockState> state(cfg.blocks.size());
  std::vector<int> work;
  for (auto [b, count] : observed) {
    if (b < 0 || size_t(b) >= state.size()) continue;
    state[size_t(b)] = {true, true, count};
    work.push_back(b);
  }
  if (mode == InferenceMode::none || cfg.blocks.empty()) return state;

  Graph g = cfg.graph();
  std::optional<DominatorTree> dom;
  if (!window) dom = compute_dominators(g);
  std::optional<PostDominatorTree> pdom;
  if (mode != InferenceMode::dominators || window)
    pdom = compute_post_dominators(g, cfg.exits(mode != InferenceMode::shye));

  while (!work.empty()) {
    int b = work.back();
    work.pop_back();
    std::vector<int> implied = dom ? dom->dominators_of(b) : std::vector<int>{};
    if (pdom) {
      std::vector<int> p = pdom->post_dominators_of(b);
      implied.insert(implied.end(), p.begin(), p.end());
    }
    for (int x : implied) {
      if (size_t(x) >= state.size()) continue;  // graph()'s virtual nodes
      BlockState& s = state[size_t(x)];
      int64_t c = state[size_t(b)].count;
      if (s.executed && s.count >= c) continue;
      s.executed = true;
      if (s.count < c) s.count = c;
      work.push_back(x);
    }
  }
  return state;
}

}  // namespace covkit::sample
