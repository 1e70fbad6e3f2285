// The floor of a flat profile over a covkit thread stream, on one core: the
// replay `trace report` does (per function calls, exclusive and inclusive
// time with recursion judged per function, min/max of a call, the deepest
// stack) in the tightest loop the format allows, trusting the stream
// completely: no bounds, id or damage checks, no restart points, one thread.
// Two variants: every event's counter converted to ns as covkit converts it
// (double slope), and sums kept in counter ticks (converted once, at the
// end: not what covkit does; it shows what the conversion costs). Used by
// bench/trace_decode_floor.sh, beside decode_floor.cc (reading alone).
//
//   profile_floor FILE.ckt [REPEATS]
//     -> "events N ns_per_event_converted X ns_per_event_ticks Y calls C"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "stream_map.h"

namespace {

// All zero is the empty state, so that the tables come from calloc and only
// the pages used are ever touched (a pass costs its events, not its tables).
struct Function {
  uint64_t calls, excl, incl;
  uint64_t not_min;  // ~min (the minimum is the largest complement)
  uint64_t max;
  uint32_t active;  // open frames (recursion: only the outermost adds to incl)
};

struct Frame {
  uint32_t fn;
  uint64_t start, child;
};

uint64_t varint(const uint8_t*& p) {
  uint64_t v = 0;
  for (unsigned shift = 0; shift < 64; shift += 7) {
    const uint8_t b = *p++;
    v |= uint64_t(b & 0x7f) << shift;
    if (!(b & 0x80)) break;
  }
  return v;
}

// Skips a special event's body (subtype and operands) at p.
const uint8_t* skip_special(const uint8_t* p, bool& end) {
  const uint64_t subtype = varint(p);
  switch (subtype) {
    case 1: varint(p); return p + 8;  // define: id, 8-byte address
    case 2: varint(p); return p;      // lost
    case 3: for (uint64_t n = varint(p); n > 0; --n) varint(p); return p;  // stack
    case 5: varint(p); varint(p); return p;  // sync
    default: end = true; return p;    // end
  }
}

struct Result {
  uint64_t events = 0, calls = 0, checksum = 0;
};

template <bool kConvert>
Result profile(const uint8_t* data, size_t size) {
  constexpr size_t kIds = size_t(1) << 17;  // the runtime's ids stay below this
  constexpr size_t kFrames = size_t(1) << 20;
  auto* const fns = static_cast<Function*>(std::calloc(kIds, sizeof(Function)));
  auto* const stack = static_cast<Frame*>(std::calloc(kFrames, sizeof(Frame)));
  if (!fns || !stack) std::abort();
  Frame* const base = stack + 1;  // base[-1]: the thread's own frame
  size_t depth = 0, deepest = 0;
  const uint8_t* p = data + 64;
  const uint8_t* const end = data + size;
  uint64_t counter = 0;
  std::memcpy(&counter, data + 16, 8);  // the header's start counter
  const uint64_t c0 = counter;
  const double n0 = 1e9, slope = 0.4;  // any clock: the work is the same
  Result r;
  bool ended = false;
  while (p < end && !ended) {
    const uint8_t lead = *p++;
    const unsigned kind = lead & 3;
    if (kind == 0) break;  // the unwritten tail
    uint64_t delta = lead >> 3;
    if (lead & 4) {  // one more byte is the common case
      if (*p < 0x80) delta |= uint64_t(*p++) << 5;
      else delta |= varint(p) << 5;
    }
    counter += delta;
    if (kind == 3) {
      p = skip_special(p, ended);
      continue;
    }
    ++r.events;
    const uint64_t now = kConvert ? uint64_t(int64_t(n0 + double(int64_t(counter - c0)) * slope)) : counter;
    if (kind == 1) {
      const uint64_t id = *p < 0x80 ? *p++ : varint(p);
      Function& f = fns[id];
      ++f.calls;
      ++f.active;
      Frame& push = base[depth++];
      push.fn = uint32_t(id);
      push.start = now;
      push.child = 0;
      if (depth > deepest) deepest = depth;
    } else {
      // Field by field: one wide load over the push's narrower stores
      // would wait for them (no store forwarding), a dozen cycles a call.
      const Frame& top = base[--depth];
      const uint32_t fn = top.fn;
      const uint64_t start = top.start, child = top.child;
      const uint64_t dur = now - start;
      Function& f = fns[fn];
      f.excl += dur - child;
      if (~dur > f.not_min) f.not_min = ~dur;
      if (dur > f.max) f.max = dur;
      if (--f.active == 0) f.incl += dur;
      base[ptrdiff_t(depth) - 1].child += dur;
    }
  }
  for (size_t i = 0; i < kIds; ++i) {
    r.calls += fns[i].calls;
    r.checksum += fns[i].excl ^ fns[i].incl ^ fns[i].max ^ fns[i].not_min;
  }
  r.checksum += deepest;
  std::free(fns);
  std::free(stack);
  return r;
}

template <bool kConvert>
double best_ns_per_event(const uint8_t* data, size_t size, int repeats, Result& out) {
  const double best = best_ns(repeats, [&] { out = profile<kConvert>(data, size); });
  return out.events ? best / double(out.events) : 0.0;
}

}  // namespace

int main(int argc, char** argv) {
  MappedStream stream;
  int repeats = 0;
  if (!bench_args(argc, argv, stream, repeats)) return 2;
  Result converted, ticks;
  const double c = best_ns_per_event<true>(stream.data, stream.size, repeats, converted);
  const double t = best_ns_per_event<false>(stream.data, stream.size, repeats, ticks);
  std::printf("events %llu ns_per_event_converted %.2f ns_per_event_ticks %.2f calls %llu checksum %llu\n",
              (unsigned long long)converted.events, c, t, (unsigned long long)converted.calls,
              (unsigned long long)(converted.checksum ^ ticks.checksum));
  return 0;
}
