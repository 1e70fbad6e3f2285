#include "trace/split_call_paths.h"

namespace covkit::trace {

PartPathsReplay::PartPathsReplay(PartPaths& out) : out_(out) { new_segment(); }

void PartPathsReplay::new_segment() {
  root_ = uint32_t(out_.nodes.size());
  out_.nodes.emplace_back();
  out_.segments.push_back({root_, {}, {}});
}

uint32_t PartPathsReplay::child(uint32_t parent, uint32_t fn) {
  auto [it, fresh] = children_.try_emplace(edge_key(parent, fn), uint32_t(out_.nodes.size()));
  if (fresh) {
    PartPaths::Node n;
    n.fn = fn;
    n.parent = parent;
    n.depth = out_.nodes[parent].depth + 1;
    out_.nodes.push_back(n);
  }
  PartPaths::Node& p = out_.nodes[parent];
  p.last_fn = fn;
  p.last_child = it->second;
  return it->second;
}

uint32_t PartPathsReplay::edge(uint64_t key) {
  auto [it, fresh] = edge_index_.try_emplace(key, uint32_t(edges_.size()));
  if (fresh) edges_.push_back({.key = key});
  return it->second;
}

void PartPathsReplay::flush() {
  PartPaths::Segment& s = out_.segments.back();
  for (uint32_t fn : touched_depth0_) {
    s.depth0.emplace_back(fn, depth0_[fn]);
    depth0_[fn] = {};
  }
  touched_depth0_.clear();
  for (uint32_t i : touched_edges_) {
    EdgeState& e = edges_[i];
    s.inner.push_back({e.key, e.incl, e.incl_nested});
    e.incl = e.incl_nested = 0;
    e.touched = false;
  }
  touched_edges_.clear();
}

void PartPathsReplay::earlier_exit() {
  flush();
  new_segment();
}

void PartPathsReplay::finish() {
  flush();
  for (const EdgeState& e : edges_)
    if (e.calls) out_.inner_calls.emplace_back(e.key, e.calls);
  for (const Frame& f : stack_) out_.open.emplace_back(f.fn, f.node);
}

PathsStitch::PathsStitch(SplitPaths& out, const std::vector<uint32_t>& keys) : out_(out), keys_(keys) {
  out_.nodes.emplace_back();
}

uint32_t PathsStitch::child(uint32_t parent, uint32_t fn) {
  auto [it, fresh] = children_.try_emplace(edge_key(parent, fn), uint32_t(out_.nodes.size()));
  if (fresh) {
    out_.nodes.emplace_back();
    out_.nodes.back().fn = fn;
    out_.nodes[parent].children.push_back(it->second);
  }
  return it->second;
}

void PathsStitch::segment(const PartPaths& part, size_t s) {
  part_ = &part;
  const PartPaths::Segment& seg = part.segments[s];
  const size_t end = s + 1 < part.segments.size() ? part.segments[s + 1].root : part.nodes.size();
  if (real_.size() < part.nodes.size()) real_.resize(part.nodes.size());
  // The segment's nodes in order of creation: each one's parent is mapped
  // before it, and real nodes are created in the order the front to back
  // replay meets their paths.
  real_[seg.root] = stack_.empty() ? 0 : stack_.back().node;
  const size_t root_depth = stack_.size();
  for (size_t n = seg.root + 1; n < end; ++n) {
    const PartPaths::Node& local = part.nodes[n];
    const uint32_t parent = real_[local.parent];
    const size_t depth = root_depth + local.depth;
    uint32_t node = kNoNode;
    if (parent != kNoNode && depth <= kCallTreeMaxDepth) node = child(parent, known(local.fn));
    else if (parent != kNoNode && depth == kCallTreeMaxDepth + 1) node = child(parent, kDeeperCalls);
    real_[n] = node;
    if (node == kNoNode) continue;
    PathNode& r = out_.nodes[node];
    r.calls += local.calls;
    r.incl += local.incl;
    r.excl += r.fn == kDeeperCalls ? local.incl : local.excl;
  }
  // The depth-0 calls' caller: the innermost real frame (none: the
  // thread's outermost calls have no edge).
  const bool has_caller = !stack_.empty();
  const uint32_t caller = has_caller ? stack_.back().fn : 0;
  if (has_caller)
    for (const auto& [fn, d] : seg.depth0) {
      PathEdge& e = out_.edges[edge_key(caller, known(fn))];
      e.calls += d.calls;
      if (e.active == 0) e.incl += d.incl;
    }
  for (const PartPaths::Inner& in : seg.inner) {
    const uint64_t key = known_edge(in.key);
    PathEdge& e = out_.edges[key];
    if (e.active != 0) continue;
    e.incl += in.incl;
    if (!has_caller || caller != uint32_t(key >> 32)) e.incl += in.incl_nested;
  }
}

void PathsStitch::pop(uint64_t dur, uint64_t excl) {
  const Frame f = stack_.back();
  stack_.pop_back();
  if (f.node != kNoNode) {
    PathNode& n = out_.nodes[f.node];
    n.incl += dur;
    n.excl += n.fn == kDeeperCalls ? dur : excl;
  }
  if (f.has_edge) {
    PathEdge& e = out_.edges[f.edge];
    if (--e.active == 0) e.incl += dur;
  }
}

void PathsStitch::finish_part(const PartPaths& part) {
  part_ = &part;
  for (const auto& [key, calls] : part.inner_calls) out_.edges[known_edge(key)].calls += calls;
  for (const auto& [fn, local] : part.open) {
    Frame f;
    f.fn = known(fn);
    f.node = local == kNoNode ? kNoNode : real_[local];
    if (!stack_.empty()) {
      f.has_edge = true;
      f.edge = edge_key(stack_.back().fn, f.fn);
      ++out_.edges[f.edge].active;
    }
    stack_.push_back(f);
  }
}

}  // namespace covkit::trace
