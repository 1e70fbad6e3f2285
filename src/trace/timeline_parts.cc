#include "trace/timeline_parts.h"

#include <algorithm>
#include <optional>
#include <span>
#include <tuple>
#include <type_traits>

#include "format/trace_stream_decoder.h"
#include "format/trace_stream_ranges.h"
#include "trace/stream_part_jobs.h"
#include "util/grown_table.h"

namespace covkit::trace {

namespace {

using format::TraceEvent;

// A part's calls are numbered base + i, base = part << kLocalBits: a part
// holds at most a chunk (1 MiB by default, a third as many calls), the
// parts of 2^40 orders are 256 GiB of stream at that size; beyond either
// limit the stream is read front to back.
constexpr unsigned kLocalBits = 22;
constexpr uint64_t kMaxLocal = uint64_t(1) << kLocalBits;
constexpr uint64_t kMaxParts = uint64_t(1) << (40 - kLocalBits);

struct OpenCall {
  uint64_t begin = 0, when = 0, order = 0;
  uint32_t id = 0;
};

// ns since the timeline's origin, as the front to back replay computes
// them (its clamp to the time before is a no-op on a clock that never goes
// backwards, which the caller checks).
template <class Clock>
struct NanosecondsBy {
  Clock clock;
  uint64_t origin;
  uint64_t operator()(uint64_t counter) const {
    const uint64_t v = clock(counter);
    return v > origin ? v - origin : 0;
  }
};
using Nanoseconds = NanosecondsBy<const format::TraceClock&>;


// What one part leaves to the stitch, besides the calls it offered.
struct TimelinePart {
  format::RangeSummary summary;
  std::vector<uint64_t> earlier_exits;  // ns of its exits of frames opened before it, in order
  std::vector<OpenCall> open;           // opened in it, open at its end, outermost first
  bool too_many = false;                // more calls than its orders can number
};

// The sink of a part's RangeDecoder (called per event: kept small). A call
// carries its function's id in `address` until the ids are resolved.
template <class Ns>
class TimelinePartReplay {
 public:
  TimelinePartReplay(TimelinePart& part, const Ns& ns, uint64_t base, Candidates& out)
      : part_(part), ns_(ns), base_(base), out_(out) {}

  // The open calls and their count, held by RangeDecoder::run in a local
  // for the whole part (see PartReplay in split_profile.cc): members would
  // be reloaded after every store into the stack.
  struct Hot {
    OpenCall* stack;
    size_t capacity, depth;
    uint64_t local;
  };
  Hot hot() { return {stack_.data(), stack_.size(), depth_, local_}; }
  void set_hot(const Hot& h) {
    depth_ = h.depth;
    local_ = h.local;
  }

  [[gnu::always_inline]] void enter(Hot& h, uint32_t id, uint64_t counter) {
    if (h.depth == h.capacity) [[unlikely]] std::tie(h.stack, h.capacity) = util::grown_table(stack_, h.depth);
    OpenCall& c = h.stack[h.depth++];
    c.begin = ns_(counter);
    c.when = counter;
    c.order = base_ + h.local++;
    c.id = id;
  }

  [[gnu::always_inline]] void exit(Hot& h, uint64_t counter) {
    const uint64_t now = ns_(counter);
    if (h.depth == 0) [[unlikely]] {
      part_.earlier_exits.push_back(now);
      return;
    }
    const OpenCall& c = h.stack[--h.depth];
    out_.offer({.begin = c.begin, .end = now, .address = c.id, .when = c.when, .order = c.order});
  }

  void finish() {
    part_.too_many = local_ > kMaxLocal;
    stack_.resize(depth_);
    part_.open = std::move(stack_);
  }

 private:
  TimelinePart& part_;
  const Ns ns_;
  const uint64_t base_;
  Candidates& out_;
  std::vector<OpenCall> stack_;  // [0, depth_) open; grown by doubling
  size_t depth_ = 0;
  uint64_t local_ = 0;
};

// The parts in order on the real stack: the frames they leave open, closed
// by the exits of later parts; the stream's ids and their addresses.
class TimelineStitch {
 public:
  explicit TimelineStitch(Candidates& out) : out_(out) {}

  bool add(const TimelinePart& part) {
    if (part.too_many || !ids_.add(part.summary)) return false;
    for (uint64_t exit : part.earlier_exits) {
      if (stack_.empty()) return false;  // an exit of no frame: the front to back read warns
      close(exit);
    }
    stack_.insert(stack_.end(), part.open.begin(), part.open.end());
    return true;
  }

  // An enter of the tail (its decoder resolved the id).
  bool enter(uint32_t id, uint64_t address, uint64_t begin, uint64_t when, uint64_t order) {
    if (!ids_.define(id, address)) return false;
    stack_.push_back({begin, when, order, id});
    return true;
  }
  bool exit(uint64_t now) {
    if (stack_.empty()) return false;
    close(now);
    return true;
  }
  void close_all(uint64_t end) {
    while (!stack_.empty()) close(end);
  }

  size_t depth() const { return stack_.size(); }
  const format::StreamIds& ids() const { return ids_; }

 private:
  void close(uint64_t end) {
    const OpenCall c = stack_.back();
    stack_.pop_back();
    out_.offer({.begin = c.begin, .end = end, .address = c.id, .when = c.when, .order = c.order});
  }

  Candidates& out_;
  std::vector<OpenCall> stack_;
  format::StreamIds ids_;
};

void replay_timeline_part(const format::StreamBytes& bytes, const format::StreamRestart& from,
                          const format::StreamRestart& to, const Nanoseconds& ns, uint64_t base, Selection& selection,
                          TimelinePart& part) {
  format::RangeDecoder decoder(bytes, from, to);
  Candidates candidates(selection);
  auto replay = [&](const auto& by) {
    TimelinePartReplay<std::decay_t<decltype(by)>> r(part, by, base, candidates);
    decoder.run(r);
    part.summary = decoder.summary();
    r.finish();
  };
  // The part's counters lie between its restart points (see
  // TraceClock::near; a part whose events leave them is not used).
  if (auto near = ns.clock.near(from.time, to.time))
    replay(NanosecondsBy<format::TraceClock::Near>{*near, ns.origin});
  else
    replay(ns);
  candidates.flush();
}

// The tail, from the last restart point on, as a front to back read sees
// it (the end of the data, a program still writing, a damaged end); then
// the frames still open close where the front to back replay closes them.
bool replay_timeline_tail(const TimelineStream& stream, const format::StreamBytes& bytes,
                          const format::StreamHeader& header, const format::StreamRestart& from, uint64_t base,
                          const Nanoseconds& ns, TimelineStitch& stitch, std::vector<std::string>& warnings) {
  const format::StreamResume resume{from.offset, from.time, stitch.depth(), stitch.ids().defines()};
  std::vector<std::string> tail_warnings;
  format::StreamDecoder decoder(bytes, stream.thread->file, resume, header.ended, tail_warnings);
  std::vector<TraceEvent> block(1024);
  uint64_t local = 0;
  for (size_t n; (n = decoder.next(std::span<TraceEvent>(block))) > 0;)
    for (size_t i = 0; i < n; ++i) {
      const TraceEvent& e = block[i];
      if (e.kind == TraceEvent::Kind::kEnter) {
        if (local == kMaxLocal || !stitch.enter(e.fn_id, e.address, ns(e.time), e.time, base + local++)) return false;
      } else if (!stitch.exit(ns(e.time))) {
        return false;
      }
    }
  const format::StreamSummary& s = decoder.summary();
  stitch.close_all(ns(format::open_frames_end(std::max(header.start, s.last_time), s.ended, stream.process->end)));
  warnings.insert(warnings.end(), tail_warnings.begin(), tail_warnings.end());
  return true;
}

}  // namespace

bool timeline_parts(const TimelineStream& stream, unsigned threads, Selection& to, std::vector<std::string>& warnings) {
  const format::TraceThread& t = *stream.thread;
  if (t.file.empty()) return false;
  const format::TraceClock clock = stream.process->clock();
  // Times are converted per part: the replay's clamp to the time before is
  // then a no-op only if the conversion never goes backwards.
  if (!clock.identity && !(clock.slope >= 0)) return false;
  std::optional<format::OpenedStream> opened = format::open_stream(t.file);
  if (!opened) return false;
  const format::StreamBytes& bytes = opened->bytes;
  const format::StreamHeader& header = opened->header;

  const Nanoseconds ns{clock, stream.origin};
  // The stream's own selection: handed to `to` only once every part fitted
  // (else the front to back replay offers the calls).
  Selection mine(to.limits(), header.counts ? header.counts->calls : 0);
  Candidates stitched(mine);
  TimelineStitch stitch(stitched);
  format::StreamParts stream_parts(bytes, header);
  if (!stream_parts.any()) return false;
  // The parts run on every core and each is stitched as soon as it and
  // those before it are done: memory holds a window of parts' open frames,
  // whatever the length of the stream.
  uint64_t parts_before = 0;  // stitched
  auto run = [&](size_t i, const format::StreamPart& range, TimelinePart& part) {
    if (i >= kMaxParts) return;  // refused in use()
    const uint64_t base = stream.order_base | uint64_t(i) << kLocalBits;
    replay_timeline_part(bytes, range.from, range.to, ns, base, mine, part);
  };
  auto use = [&](size_t i, const format::StreamPart&, TimelinePart& part) {
    if (i >= kMaxParts || part.summary.unusual || !stitch.add(part)) return false;
    parts_before = i + 1;
    return true;
  };
  if (!run_stream_parts<TimelinePart>(stream_parts, threads, run, use)) return false;
  if (parts_before >= kMaxParts) return false;
  const uint64_t tail_base = stream.order_base | parts_before << kLocalBits;
  if (!replay_timeline_tail(stream, bytes, header, stream_parts.tail(), tail_base, ns, stitch, warnings)) return false;
  stitched.flush();
  to.absorb(mine, [&](TimelineCall& c) { c.address = stitch.ids().address(c.address); });
  return true;
}

}  // namespace covkit::trace
