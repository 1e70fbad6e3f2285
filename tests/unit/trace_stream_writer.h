#pragma once
// Thread streams written the way the runtime writes them (stream_writer.c,
// events.c), for the tests of the readers in parts: a writer, a random
// walk over a call tree, a temporary file and a one-thread TraceSet.
#include <fmt/format.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "format/trace_reader.h"
#include "runtime/trace/trace_contract.h"

namespace covkit::test_streams {

inline void put_varint(std::vector<uint8_t>& b, uint64_t v) {
  while (v >= 0x80) {
    b.push_back(uint8_t(v | 0x80));
    v >>= 7;
  }
  b.push_back(uint8_t(v));
}

inline void put_le(std::vector<uint8_t>& b, size_t at, uint64_t v, int n) {
  for (int i = 0; i < n; ++i) b[at + i] = uint8_t(v >> (8 * i));
}

// Writes a stream the way the runtime does.
struct StreamWriter {
  std::vector<uint8_t> b;
  uint64_t last = 0, boundary = 0;
  uint32_t chunk = 0;
  bool v1 = false;
  std::vector<uint64_t> address;  // by id (0: not defined yet)

  StreamWriter(uint64_t start, uint32_t chunk_bytes, bool version1 = false) : last(start), chunk(chunk_bytes), v1(version1) {
    b.reserve(size_t(1) << 16);  // (also keeps GCC 12 from a false -Warray-bounds on the growth)
    b.resize(CKT_HEADER_SIZE, 0);
    std::memcpy(b.data(), version1 ? CKT_MAGIC_V1 : CKT_MAGIC, 8);
    put_le(b, CKT_HDR_PID, 1, 4);
    put_le(b, CKT_HDR_TID, 1, 4);
    put_le(b, CKT_HDR_START, start, 8);
    if (!version1) put_le(b, CKT_HDR_CHUNK, chunk, 4);
    boundary = chunk;
  }
  // ckt_stream_reserve: an event that starts at or past the chunk's end
  // rolls over, and the new chunk's sync comes first.
  void reserve() {
    if (b.size() < boundary) return;
    while (boundary <= b.size()) boundary += chunk;
    if (v1) return;
    const uint64_t at = b.size();
    b.push_back(CKT_KIND_SPECIAL);
    put_varint(b, CKT_SPECIAL_SYNC);
    put_varint(b, last);
    put_varint(b, at);
  }
  void lead(unsigned kind, uint64_t when) {
    const uint64_t d = when - last;
    last = when;
    if (d < 32) {
      b.push_back(uint8_t(kind | d << 3));
    } else {
      b.push_back(uint8_t(kind | 4 | (d & 31) << 3));
      put_varint(b, d >> 5);
    }
  }
  void enter(uint32_t id, uint64_t fn, uint64_t when) {
    if (id >= address.size()) address.resize(id + 1, 0);
    if (address[id] == 0) {
      address[id] = fn;
      reserve();
      lead(CKT_KIND_SPECIAL, when);
      put_varint(b, CKT_SPECIAL_DEFINE);
      put_varint(b, id);
      for (int i = 0; i < 8; ++i) b.push_back(uint8_t(fn >> (8 * i)));
    }
    reserve();
    lead(CKT_KIND_ENTER, when);
    put_varint(b, id);
  }
  void exit(uint64_t when) {
    reserve();
    lead(CKT_KIND_EXIT, when);
  }
  void lost(uint64_t n, uint64_t when) {
    reserve();
    lead(CKT_KIND_SPECIAL, when);
    put_varint(b, CKT_SPECIAL_LOST);
    put_varint(b, n);
  }
  void end(uint64_t when) {
    reserve();
    lead(CKT_KIND_SPECIAL, when);
    put_varint(b, CKT_SPECIAL_END);
    put_le(b, CKT_HDR_FLAGS, CKT_FLAG_ENDED, 4);
  }
};

// A random walk over a call tree: `functions` ids (some recursive), times
// with small and large gaps, a deep recursion, calls left open at the end.
inline StreamWriter random_stream(unsigned seed, uint32_t chunk, size_t events, bool ended, bool v1 = false,
                           size_t functions = 12) {
  std::mt19937_64 rng(seed);
  StreamWriter w(1000, chunk, v1);
  uint64_t now = 1000;
  size_t depth = 0;
  auto tick = [&] {
    const unsigned r = unsigned(rng() % 10);
    now += r < 6 ? rng() % 32 : r < 9 ? rng() % 5000 : rng() % 10000000;
    return now;
  };
  auto id = [&] { return uint32_t(1 + rng() % functions); };
  for (size_t i = 0; i < events; ++i) {
    const unsigned r = unsigned(rng() % 100);
    if (r == 0) {  // a deep recursion, unwound later by the walk
      const uint32_t f = id();
      for (int k = 0; k < 300; ++k, ++depth) w.enter(f, 0x1000 * f, tick());
    } else if (r == 1) {
      w.lost(1 + rng() % 3, tick());
    } else if (depth > 0 && r < 50) {
      w.exit(tick());
      --depth;
    } else {
      const uint32_t f = id();
      w.enter(f, 0x1000 * f, tick());
      ++depth;
    }
  }
  if (ended) {
    w.end(tick());
  } else {
    w.b.resize(w.b.size() + 64, 0);  // the unwritten rest of a chunk
  }
  return w;
}

struct TempFile {
  std::string path;
  explicit TempFile(const std::vector<uint8_t>& bytes) {
    path = (std::filesystem::temp_directory_path() / fmt::format("covkit-split-{}-{}.ckt", ::getpid(), counter()++)).string();
    std::ofstream(path, std::ios::binary).write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(bytes.size()));
  }
  ~TempFile() { std::remove(path.c_str()); }
  static int& counter() {
    static int n = 0;
    return n;
  }
};

// `tsc`: counters are ticks of 0.37 ns (converted per event, in parts as in
// order), else ns.
inline format::TraceSet trace_of(const std::string& file, uint64_t start, bool tsc) {
  format::TraceSet set;
  set.processes.emplace_back();
  set.processes[0].pid = 1;
  if (tsc) {
    set.processes[0].tsc = true;
    set.processes[0].calib = {{start, 1000000000000}, {start + 100000000, 1000037000000}};
  }
  format::TraceThread& t = set.processes[0].threads.emplace_back();
  t.tid = 1;
  t.file = file;
  t.start = start;
  return set;
}

}  // namespace covkit::test_streams
