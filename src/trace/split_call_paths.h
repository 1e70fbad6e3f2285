#pragma once
// Call paths (the call tree and the caller->callee edges) of ONE thread
// stream read in parallel parts, alongside the flat profile of
// split_profile.h: each part builds them below the unknown frames open
// before it, and the parts are stitched in order onto the real stack. The
// numbers are those of call_profile.cc's front to back replay:
//  - the tree: a node per call path, in order of first call under its
//    parent, with its calls, inclusive and exclusive time; at depth
//    kCallTreeMaxDepth + 1 one "[deeper calls]" node holds the frames there
//    (their inclusive time as its exclusive time too), nothing below it;
//  - the edges: calls, and the inclusive time of the activations that are
//    outermost for that edge (no frame further out on the stack called the
//    same callee from the same caller).
// A part knows the caller of each call except those at its depth 0, whose
// caller is the innermost frame opened before the part: that frame is fixed
// between two exits of earlier frames (a segment), so those calls are kept
// per segment. An inner activation outermost within the part counts only if
// the real stack holds no activation of its edge, and, when its depth-0
// ancestor calls the same callee, only if that ancestor's (then known)
// caller is not the inner caller: else the ancestor is an outer activation
// of the same edge.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <unordered_map>
#include <vector>

namespace covkit::trace {

// The call tree stops growing at this depth (as in call_profile.cc).
inline constexpr size_t kCallTreeMaxDepth = 1000;
inline constexpr uint32_t kNoNode = UINT32_MAX;
inline constexpr uint32_t kThreadRoot = UINT32_MAX;       // a node's fn: the thread itself
inline constexpr uint32_t kDeeperCalls = UINT32_MAX - 1;  // a node's fn: "[deeper calls]"

inline uint64_t edge_key(uint32_t caller, uint32_t callee) { return uint64_t(caller) << 32 | callee; }

// Functions are the stitch's keys (split_profile.h); a part replayed before
// an id's function was known names it base + i (the part's i-th such id,
// PartPaths::provisional; base: above every key the part knew), which the
// stitch turns into the function once it knows it. Keys stay below
// kProvisionalKey.
inline constexpr uint32_t kProvisionalKey = uint32_t(1) << 18;
inline constexpr uint32_t kNoKey = UINT32_MAX;  // an id whose function is not known yet

struct PathNode {
  uint32_t fn = kThreadRoot;  // a function id of the stream, or one of the two above
  uint64_t calls = 0, incl = 0, excl = 0;
  std::vector<uint32_t> children;  // in order of first call
};

struct PathEdge {
  uint64_t calls = 0, incl = 0;
  uint32_t active = 0;  // while stitching: its activations on the real stack
};

// A stream's call paths by its function ids: nodes[0] is the thread.
struct SplitPaths {
  std::vector<PathNode> nodes;
  std::unordered_map<uint64_t, PathEdge> edges;  // by edge_key(caller, callee)
};

// What one part adds to the call paths, relative to the stack it starts on.
struct PartPaths {
  std::vector<uint32_t> provisional;  // the ids named provisional_base + i, by i
  uint32_t provisional_base = kProvisionalKey;
  struct Node {
    uint32_t fn = kThreadRoot;  // kThreadRoot: a segment's root (the innermost earlier frame)
    uint32_t parent = kNoNode;  // a node of this part (kNoNode for a root)
    uint32_t depth = 0;         // below its segment's root
    uint64_t calls = 0, incl = 0, excl = 0;  // incl, excl: of its frames closed in the part
    uint32_t last_fn = kNoNode, last_child = 0;  // the child met last (loops call one callee again and again)
    uint32_t edge = kNoNode;  // while replaying: the edge from its parent's function (depth 2 and below)
  };
  struct Inner {
    uint64_t key = 0;
    uint64_t incl = 0;         // counts when the real stack holds no activation of the edge
    uint64_t incl_nested = 0;  // the same, and only if the depth-0 ancestor's caller is not the inner caller
  };
  struct Segment {
    uint32_t root = 0;  // its nodes are root .. the next segment's root - 1, in order of creation
    std::vector<std::pair<uint32_t, PathEdge>> depth0;  // callees of the unknown caller: calls, incl
    std::vector<Inner> inner;                           // edges whose activations ended outermost in the part
  };
  std::vector<Node> nodes;
  std::vector<Segment> segments;
  std::vector<std::pair<uint64_t, uint64_t>> inner_calls;  // (edge key, calls) of calls with a caller in the part
  std::vector<std::pair<uint32_t, uint32_t>> open;  // (function, node or kNoNode) of the frames still open, outermost first
};

// Builds a part's PartPaths as its replay goes (split_profile.cc calls it
// next to the flat numbers, frame for frame).
class PartPathsReplay {
 public:
  explicit PartPathsReplay(PartPaths& out);
  // Per event (inline: a call costs a few nanoseconds here); what is met
  // first goes to child() and edge().
  void enter(uint32_t fn) {
    const bool outermost = stack_.empty();
    uint32_t node = kNoNode, edge_index = kNoNode, outer_fn = fn;
    // Below kCallTreeMaxDepth + 1 frames of the part no node can be in the
    // real tree, which stops there: none is made (memory stays bounded by
    // the paths within the tree's depth, as in the front to back replay).
    if (stack_.size() <= kCallTreeMaxDepth) {
      const uint32_t parent = outermost ? root_ : stack_.back().node;
      const PartPaths::Node& p = out_.nodes[parent];
      node = p.last_fn == fn ? p.last_child : child(parent, fn);
      ++out_.nodes[node].calls;
    }
    if (outermost) {
      if (fn >= depth0_.size()) depth0_.resize(std::max<size_t>(fn + 1, depth0_.size() * 2));
      if (depth0_[fn].calls++ == 0) touched_depth0_.push_back(fn);
    } else {
      // A node has one caller, its parent's function: it keeps its edge;
      // deeper, the caller's frame keeps the edge to its last callee.
      Frame& caller = stack_.back();
      if (node != kNoNode) {
        PartPaths::Node& n = out_.nodes[node];
        if (n.edge == kNoNode) n.edge = edge(edge_key(caller.fn, fn));
        edge_index = n.edge;
      } else {
        if (caller.last_callee != fn) {
          caller.last_callee = fn;
          caller.last_edge = edge(edge_key(caller.fn, fn));
        }
        edge_index = caller.last_edge;
      }
      outer_fn = caller.outer_fn;
      EdgeState& e = edges_[edge_index];
      ++e.calls;
      ++e.active;
    }
    // Built from values here: a Frame put together in memory field by field
    // and then copied was read back wider than it was written, which the
    // store buffer cannot forward (a fifth of this function's time).
    stack_.push_back(Frame{fn, node, edge_index, outer_fn, kNoNode, 0});
  }
  // The innermost frame of the part closed, after `dur` (its exclusive time `excl`).
  void exit(uint64_t dur, uint64_t excl) {
    // The fields it needs, not a copy of the frame: a wide load over the
    // narrower stores of the frame's last writes is not forwarded.
    const Frame& f = stack_.back();
    const uint32_t fn = f.fn, node = f.node, edge = f.edge, outer_fn = f.outer_fn;
    stack_.pop_back();
    if (node != kNoNode) {
      PartPaths::Node& n = out_.nodes[node];
      n.incl += dur;
      n.excl += excl;
    }
    if (edge == kNoNode) {
      depth0_[fn].incl += dur;  // touched at its enter: depth-0 frames close in their segment
      return;
    }
    EdgeState& e = edges_[edge];
    if (--e.active != 0) return;  // an activation of the edge further out in the part
    if (!e.touched) {
      e.touched = true;
      touched_edges_.push_back(edge);
    }
    (outer_fn == fn ? e.incl_nested : e.incl) += dur;
  }
  // A frame opened before the part closed: a new segment begins.
  void earlier_exit();
  void finish();

 private:
  struct Frame {
    uint32_t fn = 0, node = kNoNode;  // no node below the tree's depth
    uint32_t edge = kNoNode;  // index in edges_; kNoNode at depth 0 (the caller is unknown)
    uint32_t outer_fn = 0;    // the function of its depth-0 ancestor (its own at depth 0)
    uint32_t last_callee = kNoNode, last_edge = 0;  // for callees without a node
  };
  struct EdgeState {
    uint64_t key = 0, calls = 0;
    uint64_t incl = 0, incl_nested = 0;  // of the current segment
    uint32_t active = 0;
    bool touched = false;  // incl or incl_nested in the current segment
  };

  uint32_t child(uint32_t parent, uint32_t fn);
  uint32_t edge(uint64_t key);
  void new_segment();
  void flush();

  PartPaths& out_;
  uint32_t root_ = 0;
  std::vector<Frame> stack_;
  std::unordered_map<uint64_t, uint32_t> children_;  // (node, fn) -> node
  std::vector<EdgeState> edges_;
  std::unordered_map<uint64_t, uint32_t> edge_index_;
  std::vector<uint32_t> touched_edges_;
  std::vector<PathEdge> depth0_;  // by function id, the current segment's
  std::vector<uint32_t> touched_depth0_;
};

// The parts' PartPaths in order, onto the real stack (split_profile.cc's
// stitch calls it next to the flat numbers, frame for frame).
class PathsStitch {
 public:
  // `keys`: the function of each id, as the stitch knows them when a part
  // is added (every id of the part by then).
  PathsStitch(SplitPaths& out, const std::vector<uint32_t>& keys);
  // Segment `s` of `part`: its nodes grafted below the innermost real
  // frame's node, its edges added as that frame's function calls them.
  void segment(const PartPaths& part, size_t s);
  // The innermost real frame closed after `dur` (its exclusive time `excl`).
  void pop(uint64_t dur, uint64_t excl);
  // After the part's segments: its calls with a caller in the part, and its
  // frames still open pushed onto the real stack.
  void finish_part(const PartPaths& part);

 private:
  struct Frame {
    uint32_t fn = 0, node = kNoNode;
    bool has_edge = false;  // the thread's outermost frames have no caller
    uint64_t edge = 0;
  };
  uint32_t child(uint32_t parent, uint32_t fn);
  // A part's function as the stitch knows it (provisional ones resolved).
  uint32_t known(uint32_t fn) const {
    if (!part_ || fn < part_->provisional_base || fn >= kDeeperCalls) return fn;
    const size_t i = fn - part_->provisional_base;
    if (i >= part_->provisional.size()) return fn;
    const uint32_t id = part_->provisional[i];
    return id < keys_.size() && keys_[id] != kNoKey ? keys_[id] : fn;
  }
  uint64_t known_edge(uint64_t key) const { return edge_key(known(uint32_t(key >> 32)), known(uint32_t(key))); }

  SplitPaths& out_;
  const std::vector<uint32_t>& keys_;
  const PartPaths* part_ = nullptr;  // being added
  std::vector<Frame> stack_;
  std::vector<uint32_t> real_;  // by node of the current part: the real node, or kNoNode
  std::unordered_map<uint64_t, uint32_t> children_;  // (node, fn) -> node
};

}  // namespace covkit::trace
