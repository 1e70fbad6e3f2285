// The floor of reading a covkit trace stream on one core: finds every event
// of a thread stream (docs/trace-format.md) and converts its time as
// `trace report` does (double slope), and does nothing else: no stack, no
// profile. What `trace report` spends beyond this is its replay; what this
// spends is the format's (an event's start is known only once the one
// before it is decoded). Used by bench/trace_decode_floor.sh.
//
//   decode_floor FILE.ckt [REPEATS]  ->  "events N ns_per_event X" (best of REPEATS)

#include <cstdint>
#include <cstdio>
#include <cstring>

#include "stream_map.h"

namespace {

bool varint(const uint8_t*& p, const uint8_t* end, uint64_t& v) {
  v = 0;
  for (unsigned shift = 0; shift < 64 && p < end; shift += 7) {
    const uint8_t b = *p++;
    v |= uint64_t(b & 0x7f) << shift;
    if (!(b & 0x80)) return true;
  }
  return false;
}

struct Pass {
  uint64_t events = 0, checksum = 0;
};

// One front-to-back pass; the checksum keeps the compiler from dropping work.
Pass decode(const uint8_t* data, size_t size) {
  Pass out;
  const uint8_t* p = data + 64;
  const uint8_t* const end = data + size;
  uint64_t time = 0;
  std::memcpy(&time, data + 16, 8);  // the header's start counter
  const uint64_t c0 = time;
  const double n0 = 1e9, slope = 0.4;  // any clock: the work is the same
  while (p < end) {
    const uint8_t lead = *p++;
    const unsigned kind = lead & 3;
    if (kind == 0) break;  // the unwritten tail
    uint64_t delta = lead >> 3;
    if (lead & 4) {
      if (p < end && *p < 0x80) {
        delta |= uint64_t(*p++) << 5;
      } else {
        uint64_t more = 0;
        if (!varint(p, end, more)) break;
        delta |= more << 5;
      }
    }
    time += delta;
    ++out.events;
    if (kind == 3) {  // special: define, lost, stack, end, sync
      uint64_t subtype = 0, a = 0;
      if (!varint(p, end, subtype)) break;
      if (subtype == 1) {
        if (!varint(p, end, a)) break;
        p += 8;
      } else if (subtype == 2) {
        if (!varint(p, end, a)) break;
      } else if (subtype == 3) {
        uint64_t n = 0;
        if (!varint(p, end, n)) break;
        for (uint64_t i = 0; i < n; ++i)
          if (!varint(p, end, a)) break;
      } else if (subtype == 5) {
        if (!varint(p, end, a) || !varint(p, end, a)) break;
      } else {
        break;  // end
      }
      continue;
    }
    const uint64_t ns = uint64_t(int64_t(n0 + double(int64_t(time - c0)) * slope));
    uint64_t id = 0;
    if (kind == 1) {
      if (p < end && *p < 0x80) id = *p++;
      else if (!varint(p, end, id)) break;
    }
    out.checksum += ns ^ id;
  }
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  MappedStream stream;
  int repeats = 0;
  if (!bench_args(argc, argv, stream, repeats)) return 2;
  Pass pass;
  const double best = best_ns(repeats, [&] { pass = decode(stream.data, stream.size); });
  std::printf("events %llu ns_per_event %.2f checksum %llu\n", (unsigned long long)pass.events,
              pass.events ? best / double(pass.events) : 0.0, (unsigned long long)pass.checksum);
  return 0;
}
