#include "format/perf_event_records.h"

#include <fmt/format.h>
#include <linux/perf_event.h>
#include <sys/mman.h>

#include <cstring>
#include <type_traits>

namespace covkit::format {

namespace {

constexpr size_t kHeaderSize = sizeof(perf_event_header);

// Fields of one record, read front to back, never past its end.
class RecordCursor {
 public:
  explicit RecordCursor(std::span<const uint8_t> bytes) : bytes_(bytes), at_(kHeaderSize) {}

  bool u32(uint32_t& v) { return fixed(&v, 4); }
  bool u64(uint64_t& v) { return fixed(&v, 8); }
  bool skip(size_t n) {
    if (n > bytes_.size() - at_) return false;
    at_ += n;
    return true;
  }
  // A NUL-terminated string (padded to 8 bytes in the record); false when
  // no NUL comes before the record's end.
  bool string(std::string& out) {
    const uint8_t* begin = bytes_.data() + at_;
    const void* nul = std::memchr(begin, 0, bytes_.size() - at_);
    if (!nul) return false;
    const size_t n = size_t(static_cast<const uint8_t*>(nul) - begin);
    out.assign(reinterpret_cast<const char*>(begin), n);
    at_ += n + 1;
    return true;
  }
  size_t left() const { return bytes_.size() - at_; }
  size_t at() const { return at_; }

 private:
  bool fixed(void* v, size_t n) {
    if (n > bytes_.size() - at_) return false;
    std::memcpy(v, bytes_.data() + at_, n);
    at_ += n;
    return true;
  }

  std::span<const uint8_t> bytes_;
  size_t at_;
};

// The time in a record's sample_id fields, which end it: TID, TIME, ID,
// STREAM_ID, CPU and IDENTIFIER, each 8 bytes, those the layout has.
uint64_t trailing_time(std::span<const uint8_t> bytes, const PerfSampleLayout& layout) {
  const uint64_t t = layout.sample_type;
  if (!layout.sample_id_all || !(t & PERF_SAMPLE_TIME)) return 0;
  size_t fields = 0;
  for (uint64_t bit : {PERF_SAMPLE_TID, PERF_SAMPLE_TIME, PERF_SAMPLE_ID, PERF_SAMPLE_STREAM_ID, PERF_SAMPLE_CPU,
                       PERF_SAMPLE_IDENTIFIER})
    if (t & bit) ++fields;
  const size_t time_from_end = (fields - ((t & PERF_SAMPLE_TID) ? 1 : 0)) * 8;
  uint64_t time = 0;
  if (bytes.size() >= kHeaderSize + fields * 8) std::memcpy(&time, bytes.data() + bytes.size() - time_from_end, 8);
  return time;
}

// The size of PERF_SAMPLE_READ's values after a group's count (read
// first), from read_format: the times, then one value (a group: one per
// member), each with its id and lost count when asked.
size_t read_values_size(uint64_t read_format, uint64_t group_members) {
  const size_t per_value = 8 * (1 + ((read_format & PERF_FORMAT_ID) ? 1 : 0) + ((read_format & PERF_FORMAT_LOST) ? 1 : 0));
  const size_t times = 8 * (((read_format & PERF_FORMAT_TOTAL_TIME_ENABLED) ? 1 : 0) +
                            ((read_format & PERF_FORMAT_TOTAL_TIME_RUNNING) ? 1 : 0));
  return times + ((read_format & PERF_FORMAT_GROUP) ? size_t(group_members) : 1) * per_value;
}

Error short_record(const char* what, const RecordCursor& c) {
  return Error(c.at(), fmt::format("perf {} record ends inside its fields", what));
}

Expected<PerfRecord> sample(RecordCursor& c, const PerfSampleLayout& layout) {
  const uint64_t t = layout.sample_type;
  PerfSample s;
  uint64_t skipped = 0;
  auto field = [&](uint64_t bit, uint64_t& v) { return !(t & bit) || c.u64(v); };
  if (!field(PERF_SAMPLE_IDENTIFIER, s.id) || !field(PERF_SAMPLE_IP, s.ip)) return short_record("sample", c);
  if ((t & PERF_SAMPLE_TID) && (!c.u32(s.pid) || !c.u32(s.tid))) return short_record("sample", c);
  if (!field(PERF_SAMPLE_TIME, s.time) || !field(PERF_SAMPLE_ADDR, skipped) || !field(PERF_SAMPLE_ID, s.id) ||
      !field(PERF_SAMPLE_STREAM_ID, skipped) || !field(PERF_SAMPLE_CPU, skipped) || !field(PERF_SAMPLE_PERIOD, skipped))
    return short_record("sample", c);
  if (t & PERF_SAMPLE_READ) {
    uint64_t members = 0;
    if ((layout.read_format & PERF_FORMAT_GROUP) && !c.u64(members)) return short_record("sample", c);
    if (members > c.left() / 8) return Error(c.at(), fmt::format("perf sample's {} read values overrun the record", members));
    if (!c.skip(read_values_size(layout.read_format, members))) return short_record("sample", c);
  }
  if (t & PERF_SAMPLE_CALLCHAIN) {
    uint64_t n = 0;
    if (!c.u64(n)) return short_record("sample", c);
    if (n > c.left() / 8) return Error(c.at(), fmt::format("perf sample's call chain of {} entries overruns the record", n));
    s.callchain.resize(size_t(n));
    for (uint64_t& ip : s.callchain) c.u64(ip);
  }
  if (t & PERF_SAMPLE_RAW) {  // a u32 size, then that many bytes (the pair padded to 8)
    uint32_t n = 0;
    if (!c.u32(n) || !c.skip(n)) return short_record("sample", c);
  }
  if (t & PERF_SAMPLE_BRANCH_STACK) {
    uint64_t n = 0, hw_index = 0;
    if (!c.u64(n) || (layout.branch_hw_index && !c.u64(hw_index))) return short_record("sample", c);
    if (n > c.left() / 24)
      return Error(c.at(), fmt::format("perf sample's branch stack of {} entries overruns the record", n));
    s.branches.resize(size_t(n));
    for (BranchPair& b : s.branches) {
      uint64_t flags = 0;
      c.u64(b.from);
      c.u64(b.to);
      c.u64(flags);
    }
  }
  return PerfRecord(std::move(s));
}

Expected<PerfRecord> mmap2(RecordCursor& c, uint16_t misc) {
  PerfMmap m;
  if (!c.u32(m.pid) || !c.u32(m.tid) || !c.u64(m.start) || !c.u64(m.length) || !c.u64(m.file_offset))
    return short_record("MMAP2", c);
  if (misc & PERF_RECORD_MISC_MMAP_BUILD_ID) {
    uint8_t id[24];  // size, two reserved fields, 20 bytes
    uint64_t words[3];
    if (!c.u64(words[0]) || !c.u64(words[1]) || !c.u64(words[2])) return short_record("MMAP2", c);
    std::memcpy(id, words, sizeof id);
    const size_t n = std::min<size_t>(id[0], 20);
    for (size_t i = 0; i < n; ++i) m.build_id += fmt::format("{:02x}", id[4 + i]);
  } else {
    uint64_t generation = 0;
    if (!c.u32(m.major) || !c.u32(m.minor) || !c.u64(m.inode) || !c.u64(generation)) return short_record("MMAP2", c);
  }
  if (!c.u32(m.prot) || !c.u32(m.flags)) return short_record("MMAP2", c);
  if (!c.string(m.path)) return Error(c.at(), "perf MMAP2 record's file name has no end");
  return PerfRecord(std::move(m));
}

}  // namespace

PerfSampleLayout perf_ring_layout(bool callchain, bool branch_stack) {
  PerfSampleLayout layout;
  layout.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME;
  if (callchain) layout.sample_type |= PERF_SAMPLE_CALLCHAIN;
  if (branch_stack) layout.sample_type |= PERF_SAMPLE_BRANCH_STACK;
  return layout;
}

Expected<PerfRecord> parse_perf_record(std::span<const uint8_t> bytes, const PerfSampleLayout& layout) {
  if (bytes.size() < kHeaderSize) return Error(0, "perf record shorter than its header");
  perf_event_header h;
  std::memcpy(&h, bytes.data(), kHeaderSize);
  if (h.size != bytes.size())
    return Error(0, fmt::format("perf record of {} bytes says it has {}", bytes.size(), h.size));
  RecordCursor c(bytes);
  switch (h.type) {
    case PERF_RECORD_SAMPLE: return sample(c, layout);
    case PERF_RECORD_MMAP: {
      PerfMmap m;
      if (!c.u32(m.pid) || !c.u32(m.tid) || !c.u64(m.start) || !c.u64(m.length) || !c.u64(m.file_offset))
        return short_record("MMAP", c);
      if (!c.string(m.path)) return Error(c.at(), "perf MMAP record's file name has no end");
      m.prot = (h.misc & PERF_RECORD_MISC_MMAP_DATA) ? PROT_READ : PROT_READ | PROT_EXEC;
      m.time = trailing_time(bytes, layout);
      return PerfRecord(std::move(m));
    }
    case PERF_RECORD_MMAP2: {
      auto r = mmap2(c, h.misc);
      if (r) std::get<PerfMmap>(*r).time = trailing_time(bytes, layout);
      return r;
    }
    case PERF_RECORD_COMM: {
      PerfComm r;
      r.exec = (h.misc & PERF_RECORD_MISC_COMM_EXEC) != 0;
      if (!c.u32(r.pid) || !c.u32(r.tid)) return short_record("COMM", c);
      if (!c.string(r.name)) return Error(c.at(), "perf COMM record's name has no end");
      r.time = trailing_time(bytes, layout);
      return PerfRecord(std::move(r));
    }
    case PERF_RECORD_FORK:
    case PERF_RECORD_EXIT: {
      PerfTask t;
      t.fork = h.type == PERF_RECORD_FORK;
      if (!c.u32(t.pid) || !c.u32(t.ppid) || !c.u32(t.tid) || !c.u32(t.ptid) || !c.u64(t.time))
        return short_record(t.fork ? "FORK" : "EXIT", c);
      return PerfRecord(t);
    }
    case PERF_RECORD_LOST: {
      uint64_t id = 0;
      PerfLost l;
      if (!c.u64(id) || !c.u64(l.count)) return short_record("LOST", c);
      l.time = trailing_time(bytes, layout);
      return PerfRecord(l);
    }
    case PERF_RECORD_LOST_SAMPLES: {
      PerfLost l;
      if (!c.u64(l.count)) return short_record("LOST_SAMPLES", c);
      l.time = trailing_time(bytes, layout);
      return PerfRecord(l);
    }
    default: return PerfRecord(std::monostate{});
  }
}

Expected<void> parse_perf_records(std::span<const uint8_t> bytes, const PerfSampleLayout& layout,
                                  std::vector<PerfRecord>& out) {
  size_t at = 0;
  while (at < bytes.size()) {
    if (bytes.size() - at < kHeaderSize) return Error(at, "perf record header cut short");
    perf_event_header h;
    std::memcpy(&h, bytes.data() + at, kHeaderSize);
    if (h.size < kHeaderSize || h.size > bytes.size() - at)
      return Error(at, fmt::format("perf record of {} bytes does not fit", h.size));
    auto r = parse_perf_record(bytes.subspan(at, h.size), layout);
    if (!r) return Error(at + r.error().offset.value_or(0), r.error().message);
    out.push_back(std::move(*r));
    at += h.size;
  }
  return {};
}

uint64_t perf_record_time(const PerfRecord& record) {
  return std::visit(
      [](const auto& r) -> uint64_t {
        if constexpr (std::is_same_v<std::decay_t<decltype(r)>, std::monostate>) return 0;
        else return r.time;
      },
      record);
}

std::vector<uint64_t> perf_callchain_returns(const PerfSample& sample) {
  std::vector<uint64_t> out;
  bool user = false, first = true;
  for (uint64_t ip : sample.callchain) {
    if (ip >= uint64_t(PERF_CONTEXT_MAX)) {  // a context marker: which frames follow
      user = ip == uint64_t(PERF_CONTEXT_USER);
      continue;
    }
    if (!user || ip == 0) continue;
    if (first) {
      first = false;
      if (ip == sample.ip) continue;  // the sampled instruction, not a return address
    }
    out.push_back(ip);
  }
  return out;
}

}  // namespace covkit::format
