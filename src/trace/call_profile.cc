#include "trace/call_profile.h"

#include "format/trace_event_reader.h"
#include "trace/split_profile.h"
#include "trace/stream_shares.h"

#include <algorithm>
#include <memory>
#include <mutex>
#include <unordered_map>

#include "util/thread_pool.h"

namespace covkit::trace {

namespace {

constexpr uint32_t kNone = UINT32_MAX;
// The call tree stops growing at this depth (deeper frames are folded into
// one "[deeper calls]" node), so that a hostile or endlessly recursive trace
// cannot make a tree whose recursive destruction overflows the stack. The
// parts' replay (split_call_paths.h) folds the same way.
constexpr size_t kMaxTreeDepth = kCallTreeMaxDepth;
constexpr uint32_t kDeeperFn = kDeeperCalls;
constexpr const char* kDeeperName = "[deeper calls]";

uint64_t pair_key(uint32_t a, uint32_t b) { return uint64_t(a) << 32 | b; }

// Functions of all threads and processes, identified by demangled name.
struct FunctionTable {
  struct Entry {
    std::string name, file;
    uint32_t line = 0;
  };
  std::vector<Entry> entries;
  std::unordered_map<std::string, uint32_t> by_name;

  uint32_t intern(const Entry& info) {
    auto [it, fresh] = by_name.try_emplace(info.name, uint32_t(entries.size()));
    if (fresh) entries.push_back(info);
    return it->second;
  }
};

struct FnAcc {
  uint32_t global = 0;
  uint64_t calls = 0, incl = 0, excl = 0, min = UINT64_MAX, max = 0;
  uint32_t active = 0;  // activations on the stack (recursion)
};

struct EdgeAcc {
  uint64_t calls = 0, incl = 0;
  uint32_t active = 0;
};

struct Node {
  uint32_t fn = kNone;  // local function id, kDeeperFn, kNone for the root
  uint64_t calls = 0, incl = 0, excl = 0;
  std::vector<uint32_t> children;
  uint32_t last_fn = kNone, last_child = 0;  // the child found last (loops call one callee again and again)
  EdgeAcc* edge = nullptr;                    // parent's function -> this one (a path has one caller)
};

struct ProfileFrame {
  uint32_t fn = 0;
  uint32_t node = kNone;
  uint64_t start = 0, child = 0;
  EdgeAcc* edge = nullptr;      // caller -> this frame (nodes of unordered_map stay put)
  uint32_t last_callee = kNone;  // this frame's last callee and its edge
  EdgeAcc* last_edge = nullptr;
  bool call = true;  // false for the frames of the initial stack: called before the stream began
};

// The replays of several threads share the symbolizer, behind a lock taken
// once per new address, never per event. Each replay names its functions
// itself (by demangled name, in order of first call); the global table is
// filled from them afterwards in trace order, so that a name gets the file
// and line of its first appearance in the trace, as when the threads were
// replayed one after the other.
struct SharedSymbols {
  Symbolizer& symbols;
  std::mutex lock;
};

class ThreadReplay {
 public:
  ThreadReplay(const format::TraceProcess& process, SharedSymbols& shared, bool reloads)
      : process_(process), shared_(shared), reloads_(reloads) {
    nodes_.emplace_back();
  }

  // The events (on any thread), then the profile (in trace order: it
  // interns the thread's functions into `table`).
  // `background`: decode the stream on a thread of its own (a core to spare).
  void replay(const format::TraceThread& thread, std::vector<std::string>& warnings, uint64_t& lost,
              bool background);
  // The stream read in parts on `threads` threads: the flat profile, and
  // with `call_paths` the edges and the call tree; false when it cannot be
  // (then this replay must be dropped: it may have named functions).
  bool replay_split(const format::TraceThread& thread, std::vector<std::string>& warnings, uint64_t& lost,
                    unsigned threads, bool call_paths);
  ThreadProfile finish(const format::TraceThread& thread, FunctionTable& table);
  // After finish(): per function (local ids) and per (caller, callee) local ids.
  const std::vector<FnAcc>& functions() const { return fns_; }
  const std::unordered_map<uint64_t, EdgeAcc>& edges() const { return edges_; }

 private:
  // The stream's function id names one address for the whole stream: a
  // dense table avoids hashing the address of every call.
  [[gnu::always_inline]] uint32_t function(const format::TraceEvent& e) {
    if (reloads_ || e.fn_id == 0) return function(e.address, e.time);
    if (e.fn_id >= by_id_.size()) by_id_.resize(std::max<size_t>(e.fn_id + 1, by_id_.size() * 2), kNone);
    uint32_t& cached = by_id_[e.fn_id];
    if (cached == kNone) cached = function(e.address, e.time);
    return cached;
  }

  uint32_t function(uint64_t address, uint64_t when) {
    // The same address is the same function unless a module was replaced
    // at the same place (dlclose + dlopen): then the time decides.
    if (!reloads_) {
      auto it = by_address_.find(address);
      if (it != by_address_.end()) return it->second;
    }
    FunctionTable::Entry info;
    {
      std::lock_guard<std::mutex> hold(shared_.lock);
      const SymbolInfo& found = shared_.symbols.lookup(process_, address, when);
      info = {found.name, found.file, found.line};
    }
    auto [it, fresh] = local_.try_emplace(info.name, uint32_t(fns_.size()));
    if (fresh) {
      fns_.push_back(FnAcc{});
      names_.push_back(std::move(info));
    }
    if (!reloads_) by_address_.emplace(address, it->second);
    return it->second;
  }

  uint32_t child_node(uint32_t parent, uint32_t fn) {
    if (nodes_[parent].last_fn == fn) return nodes_[parent].last_child;
    auto [it, fresh] = child_index_.try_emplace(pair_key(parent, fn), uint32_t(nodes_.size()));
    if (fresh) {
      nodes_.emplace_back();
      nodes_.back().fn = fn;
      nodes_[parent].children.push_back(it->second);
    }
    nodes_[parent].last_fn = fn;
    nodes_[parent].last_child = it->second;
    return it->second;
  }

  void push(uint32_t fn, uint64_t now, bool call = true) {
    ProfileFrame f;
    f.fn = fn;
    f.start = now;
    f.call = call;
    const size_t depth = stack_.size() + 1;  // of the new frame
    const uint32_t parent = stack_.empty() ? 0 : stack_.back().node;
    if (depth <= kMaxTreeDepth) f.node = child_node(parent, fn);
    else if (depth == kMaxTreeDepth + 1) f.node = child_node(parent, kDeeperFn);
    if (f.node != kNone && call) ++nodes_[f.node].calls;
    if (!stack_.empty() && call) {
      ProfileFrame& caller = stack_.back();
      // The call path's node knows its edge; below the tree's depth (or in
      // the "[deeper calls]" node) the caller's last callee may.
      const bool own_node = f.node != kNone && nodes_[f.node].fn == fn;
      f.edge = own_node ? nodes_[f.node].edge : nullptr;
      if (!f.edge) {
        if (caller.last_callee != fn) {
          caller.last_callee = fn;
          caller.last_edge = &edges_[pair_key(caller.fn, fn)];
        }
        f.edge = caller.last_edge;
        if (own_node) nodes_[f.node].edge = f.edge;
      }
      ++f.edge->calls;
      ++f.edge->active;
    }
    if (call) ++fns_[fn].calls;
    ++fns_[fn].active;
    stack_.push_back(f);
    if (stack_.size() > max_depth_) {
      // The deepest chain is kept as a prefix still equal to the stack
      // (`valid_`), so each frame is copied at most once per push.
      deepest_.resize(stack_.size());
      for (size_t i = valid_; i < stack_.size(); ++i) deepest_[i] = stack_[i].fn;
      valid_ = stack_.size();
      max_depth_ = uint32_t(stack_.size());
    }
  }

  // push(fn, now) for the common call: a callee its caller's call path
  // met last time, whose edge is known, within the tree's depth. Does
  // exactly what push does then, without its tests for the rare cases.
  [[gnu::always_inline]] void enter(uint32_t fn, uint64_t now) {
    const size_t depth = stack_.size();  // of the caller
    if (depth == 0 || depth >= kMaxTreeDepth) return push(fn, now);
    const Node& parent = nodes_[stack_.back().node];  // a node: within the tree's depth
    if (parent.last_fn != fn) return push(fn, now);
    const uint32_t index = parent.last_child;  // the (parent, fn) node: its fn is fn
    Node& node = nodes_[index];
    EdgeAcc* const edge = node.edge;
    if (!edge) return push(fn, now);
    ++node.calls;
    ++edge->calls;
    ++edge->active;
    FnAcc& a = fns_[fn];
    ++a.calls;
    ++a.active;
    ProfileFrame& f = stack_.emplace_back();
    f.fn = fn;
    f.node = index;
    f.start = now;
    f.edge = edge;
    if (depth + 1 > max_depth_) {
      deepest_.resize(depth + 1);
      for (size_t i = valid_; i <= depth; ++i) deepest_[i] = stack_[i].fn;
      valid_ = depth + 1;
      max_depth_ = uint32_t(depth + 1);
    }
  }

  [[gnu::always_inline]] void pop(uint64_t now) {
    // Field by field, not a copy of the frame: wide loads over the push's
    // narrower stores are not forwarded (see split_profile.cc's replay).
    const ProfileFrame& f = stack_.back();
    const uint32_t fn = f.fn, node = f.node;
    const uint64_t start = f.start, child = f.child;
    EdgeAcc* const edge = f.edge;
    const bool call = f.call;
    stack_.pop_back();
    valid_ = std::min(valid_, stack_.size());
    const uint64_t dur = now > start ? now - start : 0;
    const uint64_t excl = dur - std::min(dur, child);
    FnAcc& a = fns_[fn];
    if (--a.active == 0) a.incl += dur;  // outermost activation only
    a.excl += excl;
    if (call) {  // an initial frame's duration is not that of a whole call
      a.min = std::min(a.min, dur);
      a.max = std::max(a.max, dur);
    }
    if (edge && --edge->active == 0) edge->incl += dur;
    if (node != kNone) {
      Node& n = nodes_[node];
      n.incl += dur;
      n.excl += n.fn == kDeeperFn ? dur : excl;
    }
    if (!stack_.empty()) stack_.back().child += dur;
  }

  CallTreeNode tree(uint32_t index) const {
    const Node& n = nodes_[index];
    CallTreeNode out;
    if (n.fn == kDeeperFn) out.name = kDeeperName;
    else if (n.fn != kNone) out.name = names_[n.fn].name;
    out.calls = n.calls;
    out.inclusive_ns = n.incl;
    out.exclusive_ns = n.excl;
    out.children.reserve(n.children.size());
    for (uint32_t c : n.children) out.children.push_back(tree(c));
    return out;
  }

  const format::TraceProcess& process_;
  SharedSymbols& shared_;
  const bool reloads_;
  std::unordered_map<uint64_t, uint32_t> by_address_;  // address -> local id
  std::vector<uint32_t> by_id_;                        // stream function id -> local id
  std::unordered_map<std::string, uint32_t> local_;    // demangled name -> local id
  std::vector<FnAcc> fns_;
  std::unordered_map<uint64_t, EdgeAcc> edges_;  // (caller, callee) local ids
  std::vector<Node> nodes_;                      // [0] is the thread
  std::unordered_map<uint64_t, uint32_t> child_index_;
  std::vector<ProfileFrame> stack_;
  uint32_t max_depth_ = 0;
  std::vector<uint32_t> deepest_;
  size_t valid_ = 0;
  std::vector<FunctionTable::Entry> names_;  // by local id; finish() makes them the table's
  uint64_t begin_ = 0, end_ = 0;             // ns, of the thread
};

void ThreadReplay::replay(const format::TraceThread& t, std::vector<std::string>& warnings, uint64_t& lost,
                          bool background) {
  const format::TraceClock to_ns = process_.clock();
  format::TraceEventReader reader(t, warnings, background);
  auto block = reader.next();
  // The initial stack (a forked child starts inside its parent's calls):
  // open frames whose time here counts, but whose calls and edges were the
  // parent's, counted in its stream. Without it (and with events) the
  // thread begins at its first event.
  const bool starts_open = !reader.summary().initial_stack.empty() || block.empty();
  const uint64_t begin = to_ns(starts_open ? t.start : block.front().time);
  for (uint64_t address : reader.summary().initial_stack) push(function(address, t.start), begin, false);
  uint64_t last_event = 0;
  const bool had_event = !block.empty();
  for (; !block.empty(); block = reader.next()) {
    for (const format::TraceEvent& e : block) {
      uint64_t now = std::max(begin, to_ns(e.time));
      if (e.kind == format::TraceEvent::Kind::kEnter) enter(function(e), now);
      else if (!stack_.empty()) pop(now);  // the reader drops unmatched exits; a hand-made set may not
    }
    last_event = block.back().time;
  }
  const format::StreamSummary& tail = reader.summary();
  lost += tail.lost;
  // Frames left open close at the last thing the thread is known to have
  // done, or at the process's end when it outlived its thread's stream.
  const uint64_t end_counter =
      format::open_frames_end(std::max({t.start, tail.last_time, last_event}), tail.ended, process_.end);
  const uint64_t end = std::max(begin, to_ns(end_counter));
  // What was traced ends at the last call's exit: a thread that lives on
  // untraced (switched off by `trace attach`, or in code that is not
  // instrumented) adds nothing after it. Frames still open close at the end.
  const bool open_at_end = !stack_.empty();
  while (!stack_.empty()) pop(end);
  begin_ = begin;
  end_ = open_at_end ? end : had_event ? std::max(begin, to_ns(last_event)) : begin;
}

bool ThreadReplay::replay_split(const format::TraceThread& t, std::vector<std::string>& warnings, uint64_t& lost,
                                unsigned threads, bool call_paths) {
  if (reloads_ || t.file.empty()) return false;
  const std::optional<format::OpenedStream> opened = format::open_stream(t.file);
  if (!opened) return false;
  std::vector<std::string> found;
  // Recursion is judged by function as the parts are replayed: the ids of
  // one function (a static inline function's copies in several translation
  // units) share its activations, and its nodes and edges in the call paths.
  const SplitKeyOf key_of = [this](uint64_t address, uint64_t counter) { return function(address, counter); };
  auto split = split_profile(opened->bytes, opened->header, t.file, process_.clock(), process_.end, threads, found,
                             call_paths, key_of);
  if (!split) return false;
  // The stream's ids to functions, in order of first call as the replay
  // names them (key_of named them already as the parts were stitched).
  std::vector<uint32_t> local(split->functions.size(), kNone);
  for (uint32_t id : split->order) local[id] = function(split->address[id], split->functions[id].first);
  for (uint32_t id : split->order) {
    const SplitFunction& f = split->functions[id];
    FnAcc& a = fns_[local[id]];
    a.calls += f.calls;
    a.incl += f.incl;
    a.excl += f.excl;
    a.min = std::min(a.min, f.min);
    a.max = std::max(a.max, f.max);
  }
  if (call_paths) {
    // The call paths name functions by the keys key_of gave: this replay's
    // functions; node 0 stays the thread.
    auto fn_of = [&](uint32_t key) { return key == kThreadRoot ? kNone : key == kDeeperCalls ? kDeeperFn : key; };
    auto named = [&](uint32_t key) { return key == kThreadRoot || key == kDeeperCalls || key < fns_.size(); };
    for (const PathNode& p : split->paths.nodes)
      if (!named(p.fn)) return false;
    for (const auto& [key, e] : split->paths.edges)
      if (!named(uint32_t(key >> 32)) || !named(uint32_t(key))) return false;
    nodes_.clear();
    nodes_.reserve(split->paths.nodes.size());
    for (PathNode& p : split->paths.nodes) {
      Node& n = nodes_.emplace_back();
      n.fn = fn_of(p.fn);
      n.calls = p.calls;
      n.incl = p.incl;
      n.excl = p.excl;
      n.children = std::move(p.children);
    }
    for (const auto& [key, e] : split->paths.edges) edges_[pair_key(uint32_t(key >> 32), uint32_t(key))] = {e.calls, e.incl, 0};
  }
  max_depth_ = split->max_depth;
  for (uint32_t id : split->deepest) deepest_.push_back(local[id]);
  begin_ = split->begin;
  end_ = split->open_at_end ? split->end : std::max(split->begin, std::min(split->end, split->last_event));
  lost += split->lost;
  warnings.insert(warnings.end(), found.begin(), found.end());
  return true;
}

ThreadProfile ThreadReplay::finish(const format::TraceThread& t, FunctionTable& table) {
  // In order of first call, as the replay met them: the table gets the
  // names in the order a replay one thread after the other interned them.
  for (size_t i = 0; i < fns_.size(); ++i) {
    fns_[i].global = table.intern(names_[i]);
    names_[i] = table.entries[fns_[i].global];  // the file and line of the name's first appearance
  }
  ThreadProfile out;
  out.tid = t.tid;
  out.pid = process_.pid;
  out.name = t.name;
  out.wall_ns = end_ - begin_;
  out.begin_ns = begin_;
  out.end_ns = end_;
  out.max_depth = max_depth_;
  for (uint32_t fn : deepest_) out.deepest_chain.push_back(names_[fn].name);
  for (size_t i = 0; i < fns_.size(); ++i) {
    const FnAcc& a = fns_[i];
    const auto& entry = names_[i];
    out.functions.push_back({entry.name, entry.file, entry.line, a.calls, a.incl, a.excl,
                             a.calls ? a.min : 0, a.max});
  }
  std::sort(out.functions.begin(), out.functions.end(), [](const FunctionStats& a, const FunctionStats& b) {
    return a.inclusive_ns != b.inclusive_ns ? a.inclusive_ns > b.inclusive_ns : a.name < b.name;
  });
  // The root is the thread: its time outside its instrumented callees is its own.
  Node& root = nodes_[0];
  root.calls = 1;
  root.incl = out.wall_ns;
  uint64_t inside = 0;
  for (uint32_t c : root.children) inside += nodes_[c].incl;
  root.excl = out.wall_ns - std::min(out.wall_ns, inside);
  out.tree = tree(0);
  out.tree.name = format::thread_display_name(t);
  return out;
}

}  // namespace

CallProfile build_profile(const format::TraceSet& trace, Symbolizer& symbols, unsigned threads, bool call_paths) {
  CallProfile profile;
  uint64_t span_begin = UINT64_MAX, span_end = 0;  // of the threads that traced anything
  FunctionTable table;
  SharedSymbols shared{symbols, {}};
  std::vector<FnAcc> totals;  // by global id
  std::unordered_map<uint64_t, EdgeAcc> edges;  // (caller, callee) global ids

  // Every thread stream is one job; their events are replayed in parallel,
  // a batch at a time, and the results are merged in trace order, exactly as
  // when the threads were replayed one after the other.
  struct Job {
    const format::TraceProcess* process = nullptr;
    const format::TraceThread* thread = nullptr;
    bool reloads = false;
    std::unique_ptr<ThreadReplay> replay;  // while its batch runs
    ThreadProfile profile;
    std::vector<std::string> warnings;
    uint64_t lost = 0;
  };
  std::vector<Job> jobs;
  for (const format::TraceProcess& process : trace.processes) {
    bool reloads = false;
    for (size_t i = 0; i < process.modules.size() && !reloads; ++i)
      for (size_t j = i + 1; j < process.modules.size() && !reloads; ++j)
        reloads = process.modules[i].base == process.modules[j].base;
    profile.processes += !process.threads.empty();
    for (const format::TraceThread& thread : process.threads) {
      Job& job = jobs.emplace_back();
      job.process = &process;
      job.thread = &thread;
      job.reloads = reloads;
    }
  }
  if (threads == 0) threads = util::default_threads();
  // A batch holds its replays' tables until they are merged: a few per
  // worker, so that memory does not grow with the number of threads.
  const size_t batch = size_t(threads) * 4;
  // With a core per stream to spare (one thread on two cores), each stream
  // is decoded on one core and replayed on another.
  const bool background = jobs.size() * 2 <= threads;
  // The streams stream_shares.h picks are read in parts on every core, one
  // after the other (split_profile.h), call paths and all. The others in
  // parallel: the flat profile from each one's parts in order (that replay
  // skips the call paths), call paths front to back (in order, parts would
  // do the same work and the grafting besides).
  std::vector<const format::TraceThread*> streams;
  for (const Job& job : jobs) streams.push_back(job.thread);
  const std::vector<uint8_t> in_parts_on_all = streams_read_in_parts(streams, threads);
  auto big = [&](size_t i) { return in_parts_on_all[i] != 0; };
  auto run = [&](Job& job, bool split) {
    const bool in_parts = split || !call_paths;
    job.replay = std::make_unique<ThreadReplay>(*job.process, shared, job.reloads);
    if (in_parts && job.replay->replay_split(*job.thread, job.warnings, job.lost, split ? threads : 1, call_paths))
      return;
    if (in_parts) job.replay = std::make_unique<ThreadReplay>(*job.process, shared, job.reloads);
    job.replay->replay(*job.thread, job.warnings, job.lost, background);
  };
  for (size_t first = 0; first < jobs.size(); first += batch) {
    const size_t count = std::min(batch, jobs.size() - first);
    std::vector<size_t> rest;  // of this batch, in parallel
    for (size_t k = 0; k < count; ++k) {
      if (big(first + k))
        run(jobs[first + k], true);
      else
        rest.push_back(first + k);
    }
    util::parallel_for(rest.size(), threads, [&](size_t k) { run(jobs[rest[k]], false); });
    for (size_t k = 0; k < count; ++k) {
      Job& job = jobs[first + k];
      ThreadReplay& replay = *job.replay;
      job.profile = replay.finish(*job.thread, table);
      profile.warnings.insert(profile.warnings.end(), job.warnings.begin(), job.warnings.end());
      profile.lost_events += job.lost;
      if (totals.size() < table.entries.size()) totals.resize(table.entries.size());
      for (const FnAcc& a : replay.functions()) {
        FnAcc& s = totals[a.global];
        s.global = a.global;
        s.min = s.calls == 0 ? a.min : a.calls == 0 ? s.min : std::min(s.min, a.min);
        s.calls += a.calls;
        s.incl += a.incl;
        s.excl += a.excl;
        s.max = std::max(s.max, a.max);
        s.active = 1;  // seen
      }
      for (const auto& [key, e] : replay.edges()) {
        uint32_t caller = replay.functions()[uint32_t(key >> 32)].global;
        uint32_t callee = replay.functions()[uint32_t(key)].global;
        EdgeAcc& s = edges[pair_key(caller, callee)];
        s.calls += e.calls;
        s.incl += e.incl;
      }
      ThreadProfile& tp = job.profile;
      if (tp.max_depth > profile.max_depth) {
        profile.max_depth = tp.max_depth;
        profile.deepest_chain = tp.deepest_chain;
      }
      profile.total_ns += tp.wall_ns;
      if (tp.wall_ns > 0) {
        span_begin = std::min(span_begin, tp.begin_ns);
        span_end = std::max(span_end, tp.end_ns);
      }
      profile.threads.push_back(std::move(tp));
      job.replay.reset();
    }
  }
  profile.span_ns = span_end > span_begin ? span_end - span_begin : 0;
  for (const FnAcc& a : totals) {
    if (!a.active) continue;
    const auto& entry = table.entries[a.global];
    profile.functions.push_back(
        {entry.name, entry.file, entry.line, a.calls, a.incl, a.excl, a.calls ? a.min : 0, a.max});
  }
  std::sort(profile.functions.begin(), profile.functions.end(), [](const FunctionStats& a, const FunctionStats& b) {
    return a.inclusive_ns != b.inclusive_ns ? a.inclusive_ns > b.inclusive_ns : a.name < b.name;
  });
  for (const auto& [key, e] : edges)
    profile.edges.push_back({table.entries[uint32_t(key >> 32)].name, table.entries[uint32_t(key)].name, e.calls, e.incl});
  std::sort(profile.edges.begin(), profile.edges.end(), [](const EdgeStats& a, const EdgeStats& b) {
    return a.caller != b.caller ? a.caller < b.caller : a.callee < b.callee;
  });
  return profile;
}

}  // namespace covkit::trace
