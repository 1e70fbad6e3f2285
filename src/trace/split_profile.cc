#include "trace/split_profile.h"

#include <algorithm>
#include <cmath>
#include <tuple>
#include <memory>
#include <mutex>
#include <type_traits>
#include <unordered_map>

#include "format/trace_stream_ranges.h"
#include "trace/stream_part_jobs.h"
#include "util/grown_table.h"

namespace covkit::trace {

namespace {

using format::TraceEvent;

struct OpenFrame {
  uint32_t fn = 0;
  uint32_t key = 0;  // fn's recursion key, as the enter found it (the exit needs it again)
  uint64_t start = 0, child = 0;  // ns
};

// Recursion is judged by function key (split_profile.h): an id's key is its
// function's, once the stitch knows it; before that the id is a function of
// its own, a key no known function has (the part's base + its index among
// the part's unknown ids: the tables by key stay as small as the functions).

inline uint32_t known_key(const std::vector<uint32_t>& keys, uint32_t id) {
  return id < keys.size() ? keys[id] : kNoKey;
}

// The time between two exits of frames opened before the part: its calls
// at the part's depth 0 are children of the innermost such frame.
struct Segment {
  uint64_t child = 0;  // inclusive time of those calls
  // Per function, the inclusive time of its calls that were outermost within
  // the part: they count when no frame before the part is one of its.
  std::vector<std::pair<uint32_t, uint64_t>> incl;
  uint64_t exit = 0;  // ns of the exit that ends it (none for the last)
};

// What one part adds, relative to the stack it starts on.
struct Part {
  format::RangeSummary summary;
  std::vector<std::pair<uint32_t, SplitFunction>> functions;  // in order of first call in the part
  std::vector<Segment> segments;  // one more than the exits of frames opened before the part
  std::vector<OpenFrame> open;    // frames opened in the part and still open at its end
  int64_t best = INT64_MIN;       // deepest point: part frames minus earlier frames closed by then
  uint64_t best_exits = 0;        // earlier frames closed at that point
  std::vector<uint32_t> best_chain;  // the part's frames there
  std::optional<uint64_t> first_time;  // counter of its first enter or exit
  std::vector<std::pair<uint32_t, uint64_t>> addresses;  // the last part's ids (from its decoder)
  PartPaths paths;  // when call paths are asked for
};

// What a PartReplay without call paths keeps of them.
struct NoPaths {
  explicit NoPaths(PartPaths&) {}
};

// The replay of call_profile.cc on a part, with the frames before it
// unknown: the sink of its RangeDecoder, called per event (a few
// nanoseconds: what a function's numbers need sits in one record, the stack
// grows by doubling and is never shrunk). With kPaths it builds the part's
// call paths too (split_call_paths.h).
template <bool kPaths, class Clock = format::TraceClock>
class PartReplay {
 public:
  // `keys`: the function key of each id known so far (may grow meanwhile:
  // the tail's replay defines its ids as it goes).
  // `base`: above every key in `keys` (unknown ids get base + i).
  PartReplay(Part& part, const Clock& to_ns, const std::vector<uint32_t>& keys, uint32_t base)
      : part_(part), to_ns_(to_ns), keys_(keys), base_(base), paths_(part.paths) {}

  struct Function {
    SplitFunction out;  // incl unused: see Segment
    uint64_t incl = 0;  // of the current segment
  };

  // What every event reads and writes, copied out of the replay for a run
  // of events (RangeDecoder::run keeps it in a local: in registers, where
  // the replay's members are reloaded and stored around every event, since
  // the stores into the tables might alias them). The tables' pointers
  // change only where the tables grow (the functions that grow them hand
  // the new pointer back).
  struct Hot {
    OpenFrame* stack;
    size_t stack_size;
    Function* fns;
    size_t fns_size;
    uint32_t* active;
    size_t active_size;
    size_t depth, valid;
    uint64_t exits;
    int64_t best;
    bool started;  // the part's first event was seen
  };
  Hot hot() {
    return {stack_.data(), stack_.size(), fns_.data(), fns_.size(), active_.data(), active_.size(),
            depth_, valid_, exits_, part_.best, part_.first_time.has_value()};
  }
  void set_hot(const Hot& h) {
    depth_ = h.depth;
    valid_ = h.valid;
    exits_ = h.exits;
    part_.best = h.best;
  }

  [[gnu::always_inline]] void enter(Hot& h, uint32_t fn, uint64_t counter) {
    if (!h.started) [[unlikely]] h.started = start(counter);
    const uint64_t now = to_ns_(counter);
    if (fn >= h.fns_size) [[unlikely]] std::tie(h.fns, h.fns_size) = util::grown_table(fns_, fn);
    Function& f = h.fns[fn];
    if (f.out.calls++ == 0) [[unlikely]] first_call(fn, counter);
    const uint32_t key = this->key(fn);
    if (key >= h.active_size) [[unlikely]] std::tie(h.active, h.active_size) = util::grown_table(active_, key);
    ++h.active[key];
    if (h.depth == h.stack_size) [[unlikely]] std::tie(h.stack, h.stack_size) = util::grown_table(stack_, h.depth);
    h.stack[h.depth++] = {fn, key, now, 0};
    const int64_t rel = int64_t(h.depth) - int64_t(h.exits);
    if (rel > h.best) [[unlikely]] {
      h.best = rel;
      h.valid = deepest(h.stack, h.depth, h.exits, h.valid);
    }
    if constexpr (kPaths) paths_.enter(key);
  }

  [[gnu::always_inline]] void exit(Hot& h, uint64_t counter) {
    if (!h.started) [[unlikely]] h.started = start(counter);
    const uint64_t now = to_ns_(counter);
    if (h.depth == 0) [[unlikely]] {  // closes a frame opened before the part
      flush(now);
      ++h.exits;
      if constexpr (kPaths) paths_.earlier_exit();
      return;
    }
    // Field by field: copied whole, the frame was read by one 16-byte load
    // over the push's separate 4- and 8-byte stores, which the store buffer
    // cannot forward: a stall of a dozen cycles for every call that returns
    // at once (a third of the replay's time).
    const OpenFrame& top = h.stack[--h.depth];
    const uint32_t fn = top.fn, key = top.key;
    const uint64_t start = top.start, child_time = top.child;
    h.valid = std::min(h.valid, h.depth);
    const uint64_t dur = now > start ? now - start : 0;
    const uint64_t excl = dur - std::min(dur, child_time);
    Function& f = h.fns[fn];
    f.out.excl += excl;
    f.out.min = std::min(f.out.min, dur);
    f.out.max = std::max(f.out.max, dur);
    if (--h.active[key] == 0 && dur > 0) {
      if (f.incl == 0) touched_.push_back(fn);
      f.incl += dur;
    }
    if (h.depth > 0) h.stack[h.depth - 1].child += dur;
    else child_ += dur;
    if constexpr (kPaths) paths_.exit(dur, excl);
  }

  void finish() {
    part_.paths.provisional = std::move(provisional_ids_);
    part_.paths.provisional_base = base_;
    if constexpr (kPaths) paths_.finish();
    flush(0);
    part_.open.assign(stack_.begin(), stack_.begin() + ptrdiff_t(depth_));
    for (uint32_t id : order_) part_.functions.emplace_back(id, fns_[id].out);
  }

 private:
  // The slow paths of enter/exit, out of line: they take and return the
  // hot state by value, so that it never has an address.
  [[gnu::noinline]] bool start(uint64_t counter) {
    part_.first_time = counter;
    return true;
  }
  [[gnu::noinline]] void first_call(uint32_t fn, uint64_t counter) {
    order_.push_back(fn);
    fns_[fn].out.first = counter;
  }
  // A new deepest point: the part's frames there (those below `valid`
  // are already in the chain). Returns the new `valid`.
  [[gnu::noinline]] size_t deepest(const OpenFrame* stack, size_t depth, uint64_t exits, size_t valid) {
    part_.best_exits = exits;
    part_.best_chain.resize(depth);
    for (size_t i = valid; i < depth; ++i) part_.best_chain[i] = stack[i].fn;
    return depth;
  }

  [[gnu::always_inline]] uint32_t key(uint32_t id) {
    const uint32_t k = known_key(keys_, id);
    return k != kNoKey ? k : provisional(id);
  }
  uint32_t provisional(uint32_t id) {
    if (id >= provisional_index_.size()) provisional_index_.resize(size_t(id) + 1, 0);
    if (provisional_index_[id] == 0) {
      provisional_ids_.push_back(id);
      provisional_index_[id] = uint32_t(provisional_ids_.size());
    }
    return base_ + provisional_index_[id] - 1;
  }

  // Ends a segment (at an exit of an earlier frame, or the part's end).
  void flush(uint64_t exit) {
    Segment& s = part_.segments.emplace_back();
    s.child = child_;
    s.exit = exit;
    for (uint32_t fn : touched_) {
      s.incl.emplace_back(fn, fns_[fn].incl);
      fns_[fn].incl = 0;
    }
    touched_.clear();
    child_ = 0;
  }

  Part& part_;
  const Clock to_ns_;
  const std::vector<uint32_t>& keys_;
  const uint32_t base_;
  std::vector<Function> fns_;  // by id
  std::vector<uint32_t> active_;  // activations open in the part, by recursion key
  std::vector<uint32_t> provisional_ids_;    // by index: the ids whose function was not known
  std::vector<uint32_t> provisional_index_;  // by id: its index + 1 (0: none)
  std::vector<uint32_t> order_, touched_;
  std::vector<OpenFrame> stack_;  // [0, depth_) open
  size_t depth_ = 0;
  uint64_t exits_ = 0, child_ = 0;
  size_t valid_ = 0;
  std::conditional_t<kPaths, PartPathsReplay, NoPaths> paths_;
};

struct StitchFrame {
  uint32_t fn = 0;
  uint64_t start = 0, child = 0;
};

// The parts in order, on the real stack: exact numbers, or false when a part
// does not fit (an id used undefined or redefined, an exit of no frame).
class Stitch {
 public:
  // `paths`: the call paths are stitched too. `key_of`: see split_profile.h.
  Stitch(SplitProfile& out, bool paths, const SplitKeyOf& key_of) : out_(out), key_of_(key_of) {
    if (paths) paths_.emplace(out.paths, keys_);
  }

  // The ids the part defines, before add(): false when they do not fit.
  // `shared` is set when one of them proves to be a function another id
  // already is (the part was replayed treating it as a function of its own).
  bool ids(const Part& part, bool& shared) {
    if (!ids_.add(part.summary)) return false;
    for (const auto& [id, address] : part.addresses)
      if (!ids_.define(id, address)) return false;
    if (part.summary.defines.empty() && part.addresses.empty()) return true;
    // Functions are looked up at their first call (defined just before it).
    std::unordered_map<uint32_t, uint64_t> first;
    for (const auto& [id, f] : part.functions) first.emplace(id, f.first);
    auto define = [&](uint64_t id, uint64_t address) {
      auto it = first.find(uint32_t(id));
      return define_key(uint32_t(id), address, it != first.end() ? it->second : part.summary.end_time, shared);
    };
    for (const auto& [id, address] : part.summary.defines)
      if (!define(id, address)) return false;
    for (const auto& [id, address] : part.addresses)
      if (!define(id, address)) return false;
    return true;
  }

  // The function key of an id at its define (once per id).
  bool define_key(uint32_t id, uint64_t address, uint64_t counter, bool& shared) {
    if (id >= keys_.size()) keys_.resize(size_t(id) + 1, kNoKey);
    if (keys_[id] != kNoKey) return true;
    const uint32_t key = key_of_ ? key_of_(address, counter) : id;
    if (key >= kProvisionalKey) return false;
    keys_[id] = key;
    ++defined_;
    if (key >= key_ids_.size()) key_ids_.resize(size_t(key) + 1, 0);
    if (++key_ids_[key] > 1) shared = true;
    return true;
  }

  const std::vector<uint32_t>& keys() const { return keys_; }
  size_t defined() const { return defined_; }  // ids given a key so far (grows with keys())
  // Whether the id's function is also another id's.
  bool shares_function(uint32_t id) const {
    const uint32_t k = known_key(keys_, id);
    return k != kNoKey && k < key_ids_.size() && key_ids_[k] > 1;
  }

  // After ids(part).
  bool add(const Part& part) {
    const uint64_t depth = stack_.size();
    const uint64_t exits = part.segments.size() - 1;
    if (exits > depth) return false;
    if (part.best != INT64_MIN && int64_t(depth) + part.best > int64_t(out_.max_depth)) {
      if (int64_t(depth) + part.best > int64_t(UINT32_MAX)) return false;
      out_.max_depth = uint32_t(int64_t(depth) + part.best);
      // The chain's first `valid_` frames are still those of the stack: only
      // the rest is copied (a stack that keeps growing is not copied whole
      // per part).
      const size_t keep = size_t(depth - part.best_exits);
      out_.deepest.resize(keep);
      for (size_t i = std::min(valid_, keep); i < keep; ++i) out_.deepest[i] = stack_[i].fn;
      valid_ = keep;
      out_.deepest.insert(out_.deepest.end(), part.best_chain.begin(), part.best_chain.end());
    }
    for (size_t i = 0; i < part.segments.size(); ++i) {
      const Segment& s = part.segments[i];
      if (paths_) paths_->segment(part.paths, i);
      for (const auto& [fn, sum] : s.incl) {
        const uint32_t key = stitch_key(fn);
        if (key >= active_.size() || active_[key] == 0) function(fn).incl += sum;
      }
      if (!stack_.empty()) stack_.back().child += s.child;
      if (i + 1 < part.segments.size()) pop(s.exit);
    }
    for (const auto& [fn, f] : part.functions) {
      SplitFunction& a = function(fn);
      if (a.calls == 0) {
        out_.order.push_back(fn);
        a.first = f.first;
      }
      a.calls += f.calls;
      a.excl += f.excl;
      a.min = std::min(a.min, f.min);
      a.max = std::max(a.max, f.max);
    }
    for (const OpenFrame& f : part.open) {
      ++active(stitch_key(f.fn));
      stack_.push_back({f.fn, f.start, f.child});
    }
    if (paths_) paths_->finish_part(part.paths);
    out_.lost = part.summary.lost > UINT64_MAX - out_.lost ? UINT64_MAX : out_.lost + part.summary.lost;
    return true;
  }

  // The frames still open end at `end`; the ids' addresses go out.
  void close(uint64_t end) {
    while (!stack_.empty()) pop(end);
    out_.address = ids_.addresses();
  }

  size_t depth() const { return stack_.size(); }
  std::vector<std::pair<uint64_t, uint64_t>> defines() const { return ids_.defines(); }

 private:
  SplitFunction& function(uint32_t fn) {
    if (fn >= out_.functions.size()) out_.functions.resize(fn + 1);
    return out_.functions[fn];
  }
  // Every id of a part has its key once ids(part) ran; any other (none in
  // a stream that stitches) counts as its own function.
  uint32_t stitch_key(uint32_t id) const {
    const uint32_t k = known_key(keys_, id);
    return k != kNoKey ? k : kProvisionalKey + id;
  }
  uint32_t& active(uint32_t key) {
    if (key >= active_.size()) active_.resize(size_t(key) + 1, 0);
    return active_[key];
  }

  void pop(uint64_t now) {
    const StitchFrame f = stack_.back();
    stack_.pop_back();
    valid_ = std::min(valid_, stack_.size());
    const uint64_t dur = now > f.start ? now - f.start : 0;
    const uint64_t excl = dur - std::min(dur, f.child);
    SplitFunction& a = function(f.fn);
    if (--active(stitch_key(f.fn)) == 0) a.incl += dur;
    a.excl += excl;
    a.min = std::min(a.min, dur);
    a.max = std::max(a.max, dur);
    if (!stack_.empty()) stack_.back().child += dur;
    if (paths_) paths_->pop(dur, excl);
  }

  SplitProfile& out_;
  const SplitKeyOf& key_of_;
  std::vector<StitchFrame> stack_;
  std::vector<uint32_t> active_;  // by recursion key
  std::vector<uint32_t> keys_;    // by id: its function key (kNoKey: not defined yet)
  std::vector<uint32_t> key_ids_; // by key: how many ids it has
  size_t defined_ = 0;
  format::StreamIds ids_;
  size_t valid_ = 0;              // frames of out_.deepest still equal to the stack's
  std::optional<PathsStitch> paths_;
};

constexpr size_t kBlock = 1024;

using Keys = std::vector<uint32_t>;

// Replays a part with the function keys known so far (its unknown ids get
// keys above all of them).
template <bool kPaths>
void replay_part(const format::StreamBytes& bytes, const format::StreamRestart& from, const format::StreamRestart& to,
                 const format::TraceClock& to_ns, const Keys& keys, Part& part) {
  uint32_t base = 0;
  for (uint32_t k : keys)
    if (k != kNoKey) base = std::max(base, k + 1);
  format::RangeDecoder decoder(bytes, from, to);
  auto replay = [&](const auto& clock) {
    PartReplay<kPaths, std::decay_t<decltype(clock)>> r(part, clock, keys, base);
    decoder.run(r);
    part.summary = decoder.summary();
    r.finish();
  };
  // The part's counters lie between its two restart points (a part whose
  // events leave that range does not end at the second and is not used).
  if (auto near = to_ns.near(from.time, to.time)) replay(*near);
  else replay(to_ns);
}

template <bool kPaths>
std::optional<SplitProfile> split(const format::StreamBytes& bytes, const format::StreamHeader& header,
                                  const std::string& file, const format::TraceClock& to_ns,
                                  std::optional<uint64_t> process_end, unsigned threads,
                                  std::vector<std::string>& warnings, const SplitKeyOf& key_of) {
  // Times are converted per part: the replay's clamp to the thread's first
  // event is then a no-op only if the conversion never goes backwards.
  if (!to_ns.identity && !(to_ns.slope >= 0)) return std::nullopt;
  // Restart points are found as the parts are replayed:
  // on a cold page cache the finder's read-ahead keeps the disk busy ahead
  // of the replay.
  format::StreamParts stream_parts(bytes, header);
  if (!stream_parts.any()) return std::nullopt;
  SplitProfile out;
  Stitch stitch(out, kPaths, key_of);
  std::optional<uint64_t> first;
  // The parts run on every core, and each is stitched as soon as it and
  // those before it are done; memory holds a window of parts, whatever the
  // length of the stream. A part is replayed with the function keys known
  // when it starts (a snapshot, since the stitch learns more meanwhile:
  // `known` is replaced, never changed, under `known_mutex`).
  struct Replayed {
    std::shared_ptr<const Keys> keys;  // those it was replayed with
    Part part;
  };
  auto known = std::make_shared<const Keys>(stitch.keys());
  std::mutex known_mutex;
  size_t defined = stitch.defined();
  auto run = [&](size_t, const format::StreamPart& range, Replayed& r) {
    {
      std::lock_guard lock(known_mutex);
      r.keys = known;
    }
    replay_part<kPaths>(bytes, range.from, range.to, to_ns, *r.keys, r.part);
  };
  auto use = [&](size_t, const format::StreamPart& range, Replayed& r) {
    bool shared = false;
    if (r.part.summary.unusual || !stitch.ids(r.part, shared)) return false;
    // An id the part met before its function was known, which proves to be
    // a function another id also is: the part is replayed again knowing
    // every function of its ids (each is defined by it or before it).
    for (uint32_t id : r.part.paths.provisional)
      if (stitch.shares_function(id)) {
        r.part = Part{};
        replay_part<kPaths>(bytes, range.from, range.to, to_ns, stitch.keys(), r.part);
        if (r.part.summary.unusual) return false;
        break;
      }
    if (!stitch.add(r.part)) return false;
    if (!first) first = r.part.first_time;
    if (stitch.defined() != defined) {
      defined = stitch.defined();
      auto keys = std::make_shared<const Keys>(stitch.keys());
      std::lock_guard lock(known_mutex);
      known = std::move(keys);
    }
    return true;
  };
  if (!run_stream_parts<Replayed>(stream_parts, threads, run, use)) return std::nullopt;
  // The tail, from the last restart point on, as a front to back read would
  // see it: the end of the data, a program still writing, a damaged end.
  const format::StreamRestart& from = stream_parts.tail();
  format::StreamResume resume{from.offset, from.time, stitch.depth(), stitch.defines()};
  std::vector<std::string> tail_warnings;
  format::StreamDecoder decoder(bytes, file, resume, header.ended, tail_warnings);
  Part tail;
  PartReplay<kPaths> replay(tail, to_ns, stitch.keys(), kProvisionalKey);  // every id defined before its call
  bool shared = false;  // the tail knows each function before its first call: no guess to undo
  std::vector<TraceEvent> block(kBlock);
  std::vector<uint64_t> address;  // by id, as the tail's decoder resolved it (0: not yet)
  auto hot = replay.hot();
  // The last enter or exit: the tail's, else the restart point it starts at
  // (whose counter is the event before it).
  uint64_t last_event = from.time;
  for (size_t n; (n = decoder.next(std::span<TraceEvent>(block))) > 0;)
    for (size_t i = 0; i < n; ++i) {
      const TraceEvent& e = block[i];
      last_event = e.time;
      if (e.kind == TraceEvent::Kind::kEnter) {
        if (e.fn_id == 0 || e.fn_id >= format::kRangeMaxId) return std::nullopt;
        if (e.fn_id >= address.size()) address.resize(std::max<size_t>(e.fn_id + 1, address.size() * 2), 0);
        if (address[e.fn_id] == 0) {
          address[e.fn_id] = e.address | uint64_t(1) << 63;  // marked: an address may be 0
          tail.addresses.emplace_back(e.fn_id, e.address);
          if (!stitch.define_key(e.fn_id, e.address, e.time, shared)) return std::nullopt;
        } else if (address[e.fn_id] != (e.address | uint64_t(1) << 63)) {
          return std::nullopt;  // redefined: its calls are of two functions
        }
      }
      if (e.kind == TraceEvent::Kind::kEnter) replay.enter(hot, e.fn_id, e.time);
      else replay.exit(hot, e.time);
    }
  replay.set_hot(hot);
  replay.finish();
  const format::StreamSummary& s = decoder.summary();
  tail.summary.lost = s.lost;
  if (!stitch.ids(tail, shared) || !stitch.add(tail)) return std::nullopt;
  if (!first) first = tail.first_time;
  if (!first) return std::nullopt;  // no event: the front to back replay begins at the start
  out.first_time = *first;
  out.begin = to_ns(*first);
  const uint64_t end_counter = format::open_frames_end(std::max(header.start, s.last_time), s.ended, process_end);
  out.end = std::max(out.begin, to_ns(end_counter));
  out.last_event = std::max(out.begin, to_ns(last_event));
  out.open_at_end = stitch.depth() > 0;
  stitch.close(out.end);
  warnings.insert(warnings.end(), tail_warnings.begin(), tail_warnings.end());
  return out;
}

}  // namespace

std::optional<SplitProfile> split_profile(const format::StreamBytes& bytes, const format::StreamHeader& header,
                                          const std::string& file, const format::TraceClock& to_ns,
                                          std::optional<uint64_t> process_end, unsigned threads,
                                          std::vector<std::string>& warnings, bool call_paths,
                                          const SplitKeyOf& key_of) {
  return call_paths ? split<true>(bytes, header, file, to_ns, process_end, threads, warnings, key_of)
                    : split<false>(bytes, header, file, to_ns, process_end, threads, warnings, key_of);
}

}  // namespace covkit::trace
