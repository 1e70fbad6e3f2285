// perf.data (format/perf_data_file) and its import (sample/perf_data_import),
// on files built here byte by byte after perf's perf.data-file-format.txt
// and linux/perf_event.h: branch stacks (no PMU on this VM), two events told
// apart by id, rounds out of order, perf's own records and every refusal.
// Files that perf itself wrote are read by tests/sample_record's perf_data_*
// scenarios, against `perf script`.
#include <gtest/gtest.h>
#include <linux/perf_event.h>
#include <sys/mman.h>

#include <cstring>
#include <string>
#include <vector>

#include "format/perf_data_file.h"
#include "perf_record_bytes.h"
#include "sample/perf_data_import.h"

namespace covkit {
namespace {

using format::PerfRecord;
using testing::RecordBytes;

constexpr uint32_t kFinishedRound = 68, kAuxtrace = 71, kCompressed = 81;

perf_event_attr attr(uint64_t sample_type) {
  perf_event_attr a;
  std::memset(&a, 0, sizeof a);
  a.size = sizeof a;
  a.type = PERF_TYPE_SOFTWARE;
  a.config = PERF_COUNT_SW_CPU_CLOCK;
  a.sample_period = 250000;
  a.sample_type = sample_type;
  a.sample_id_all = 1;
  return a;
}

struct Event {
  perf_event_attr attr;
  std::vector<uint64_t> ids;
};

void put64(std::vector<uint8_t>& out, size_t at, uint64_t v) { std::memcpy(out.data() + at, &v, 8); }
void append(std::vector<uint8_t>& out, const void* p, size_t n) {
  const auto* b = static_cast<const uint8_t*>(p);
  out.insert(out.end(), b, b + n);
}

// A whole file: header, attrs, their ids, the data, the feature table
// (TRACING_DATA, empty, when `tracing`, so that the build-ids are the
// second section) and the build-id records.
std::vector<uint8_t> perf_data(const std::vector<Event>& events, const std::vector<std::vector<uint8_t>>& records,
                               const std::vector<std::pair<std::string, std::vector<uint8_t>>>& build_ids = {},
                               bool tracing = false) {
  const size_t entry = sizeof(perf_event_attr) + 16;
  std::vector<uint8_t> out(104, 0);
  std::memcpy(out.data(), "PERFILE2", 8);
  put64(out, 8, 104);
  put64(out, 16, entry);
  const size_t attrs_at = out.size();
  out.resize(out.size() + entry * events.size());
  for (size_t i = 0; i < events.size(); ++i) {
    std::memcpy(out.data() + attrs_at + i * entry, &events[i].attr, sizeof(perf_event_attr));
    const size_t ids_at = out.size();
    for (uint64_t id : events[i].ids) append(out, &id, 8);
    put64(out, attrs_at + i * entry + sizeof(perf_event_attr), ids_at);
    put64(out, attrs_at + i * entry + sizeof(perf_event_attr) + 8, 8 * events[i].ids.size());
  }
  put64(out, 24, attrs_at);
  put64(out, 32, entry * events.size());
  const size_t data_at = out.size();
  for (const auto& r : records) out.insert(out.end(), r.begin(), r.end());
  put64(out, 40, data_at);
  put64(out, 48, out.size() - data_at);
  if (!build_ids.empty()) {
    uint64_t features = (1u << 2) | (tracing ? 1u << 1 : 0);
    std::memcpy(out.data() + 72, &features, 8);
    const size_t table = out.size();
    out.resize(out.size() + (tracing ? 32 : 16), 0);
    std::vector<uint8_t> section;
    for (const auto& [path, id] : build_ids) {
      RecordBytes r(0, 1 << 15);  // PERF_RECORD_MISC_BUILD_ID_SIZE: the length byte counts
      std::vector<uint8_t> field(24, 0);
      std::memcpy(field.data(), id.data(), id.size());
      field[20] = uint8_t(id.size());
      r.u32(0).append(field).string(path);
      auto b = r.bytes();
      section.insert(section.end(), b.begin(), b.end());
    }
    const size_t slot = table + (tracing ? 16 : 0);
    if (tracing) put64(out, table, out.size());  // an empty TRACING_DATA section
    put64(out, slot, out.size());
    put64(out, slot + 8, section.size());
    out.insert(out.end(), section.begin(), section.end());
  }
  return out;
}

constexpr uint64_t kBranchType = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_BRANCH_STACK;

Event branch_event() {
  Event e{attr(kBranchType), {7}};
  e.attr.type = PERF_TYPE_HARDWARE;
  e.attr.config = PERF_COUNT_HW_CPU_CYCLES;
  e.attr.freq = 1;
  e.attr.sample_freq = 4000;
  e.attr.branch_sample_type = PERF_SAMPLE_BRANCH_USER | PERF_SAMPLE_BRANCH_ANY | PERF_SAMPLE_BRANCH_HW_INDEX;
  return e;
}

std::vector<uint8_t> branch_sample(uint32_t pid, uint64_t ip, uint64_t time, uint64_t from) {
  RecordBytes r(PERF_RECORD_SAMPLE);
  r.u64(ip).u32(pid).u32(pid).u64(time);
  r.u64(2).u64(99);                      // two entries, after hw_idx
  r.u64(from).u64(ip).u64(0);            // the newest: into the sample's IP
  r.u64(from - 0x40).u64(from - 0x80).u64(0);
  return r.bytes();
}

std::vector<uint8_t> comm_exec(uint32_t pid, const std::string& name, uint64_t time) {
  return RecordBytes(PERF_RECORD_COMM, PERF_RECORD_MISC_COMM_EXEC).u32(pid).u32(pid).string(name).sample_id(pid, pid, time).bytes();
}

std::vector<uint8_t> mmap2(uint32_t pid, uint64_t start, const std::string& path, uint64_t time) {
  RecordBytes r(PERF_RECORD_MMAP2);
  r.u32(pid).u32(pid).u64(start).u64(0x1000).u64(0x1000);
  r.u32(8).u32(1).u64(4242).u64(0);
  r.u32(PROT_READ | PROT_EXEC).u32(MAP_PRIVATE).string(path).sample_id(pid, pid, time);
  return r.bytes();
}

std::vector<uint8_t> round_end() { return RecordBytes(kFinishedRound).bytes(); }

// COMM and MMAP2 of a process, a sample, a round's end, an older sample in
// the next round, perf's own records (an AUXTRACE with its trace after it,
// a type covkit does not know), another round's end and a last sample.
std::vector<std::vector<uint8_t>> branch_records() {
  RecordBytes aux(kAuxtrace);
  aux.u64(16).u64(0).u64(0).u32(0).u32(0).u32(0).u32(0);
  auto aux_bytes = aux.bytes();
  aux_bytes.resize(aux_bytes.size() + 16, 0xee);  // the trace: not a record
  return {comm_exec(10, "prog", 5),
          mmap2(10, 0x400000, "/no/such/prog", 6),
          branch_sample(10, 0x400100, 30, 0x4000f0),
          round_end(),
          branch_sample(10, 0x400200, 20, 0x4001f0),
          aux_bytes,
          RecordBytes(70).u64(1).bytes(),
          round_end(),
          branch_sample(10, 0x400300, 40, 0x4002f0)};
}

const std::vector<uint8_t> kBuildId = {0xde, 0xad, 0xbe, 0xef, 0x01, 0x02, 0x03, 0x04};

std::vector<uint64_t> times_of(const format::PerfDataFile& f) {
  std::vector<uint64_t> times;
  auto ok = format::for_each_perf_data_record(f, [&](const PerfRecord& r) { times.push_back(format::perf_record_time(r)); });
  EXPECT_TRUE(ok) << ok.error().describe();
  return times;
}

TEST(PerfDataFile, ReadsEventsBuildIdsAndRecordsInTimeOrder) {
  const auto file = perf_data({branch_event()}, branch_records(), {{"/no/such/prog", kBuildId}}, true);
  ASSERT_TRUE(format::is_perf_data(file));
  auto f = format::read_perf_data(file);
  ASSERT_TRUE(f) << f.error().describe();
  ASSERT_EQ(f->events.size(), 1u);
  EXPECT_EQ(f->events[0].ids, std::vector<uint64_t>{7});
  EXPECT_TRUE(f->events[0].freq);
  EXPECT_EQ(f->events[0].period_or_freq, 4000u);
  EXPECT_TRUE(f->events[0].layout.branch_hw_index);
  EXPECT_EQ(f->build_ids.at("/no/such/prog"), "deadbeef01020304");
  // The sample of time 20 came after the round that held the one of 30.
  EXPECT_EQ(times_of(*f), (std::vector<uint64_t>{5, 6, 20, 30, 40}));
}

TEST(PerfDataFile, ImportMakesARecordingOfModePerf) {
  const auto file = perf_data({branch_event()}, branch_records(), {{"/no/such/prog", kBuildId}});
  auto rec = sample::import_perf_data(file);
  ASSERT_TRUE(rec) << rec.error().describe();
  EXPECT_EQ(rec->mode, "perf");
  EXPECT_EQ(rec->period_ns, 250000u);  // 4000 Hz
  EXPECT_EQ(rec->vector_length, 2u);
  ASSERT_EQ(rec->images.size(), 1u);
  EXPECT_EQ(rec->images[0].pid, 10);
  EXPECT_EQ(rec->images[0].executable, "/no/such/prog");
  ASSERT_EQ(rec->images[0].mappings.size(), 1u);
  // The file is gone: its build-id is the one perf saved.
  EXPECT_EQ(rec->images[0].mappings[0].build_id, "deadbeef01020304");
  ASSERT_EQ(rec->samples.size(), 3u);
  EXPECT_EQ(rec->samples[0].ip, 0x400200u);  // time 20 first
  ASSERT_EQ(rec->samples[0].branches.size(), 2u);
  EXPECT_EQ(rec->samples[0].branches[0].from, 0x4001f0u - 0x40);  // oldest first
  EXPECT_EQ(rec->samples[0].branches[1].to, 0x400200u);
}

TEST(PerfDataFile, ProcessesWithoutSamplesAreLeftOut) {
  auto records = branch_records();
  records.insert(records.begin(), mmap2(99, 0x500000, "/usr/bin/other", 1));  // a system-wide record's process
  auto rec = sample::import_perf_data(perf_data({branch_event()}, records));
  ASSERT_TRUE(rec) << rec.error().describe();
  ASSERT_EQ(rec->images.size(), 1u);
  EXPECT_EQ(rec->images[0].pid, 10);
  for (const auto& s : rec->samples) EXPECT_EQ(s.image, 0u);
}

TEST(PerfDataFile, EventsOfDifferentLayoutsAreToldApartByIdentifier) {
  const uint64_t base = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME;
  Event plain{attr(base), {1, 2}}, chained{attr(base | PERF_SAMPLE_CALLCHAIN), {3}};
  auto sample = [](uint64_t id, uint64_t ip, uint64_t time) {
    return std::move(RecordBytes(PERF_RECORD_SAMPLE).u64(id).u64(ip).u32(10).u32(11).u64(time));
  };
  // sample_id: pid, tid, time, then IDENTIFIER last.
  auto map = RecordBytes(PERF_RECORD_MMAP2);
  map.u32(10).u32(10).u64(0x400000).u64(0x1000).u64(0).u32(8).u32(1).u64(1).u64(0);
  map.u32(PROT_READ | PROT_EXEC).u32(MAP_PRIVATE).string("/no/prog").u32(10).u32(10).u64(3).u64(2);
  const auto file = perf_data({plain, chained},
                              {sample(2, 0x400010, 50).bytes(), map.bytes(),
                               sample(3, 0x400020, 60).u64(3).u64(uint64_t(PERF_CONTEXT_USER)).u64(0x400020).u64(0x400400).bytes()});
  auto f = format::read_perf_data(file);
  ASSERT_TRUE(f) << f.error().describe();
  std::vector<PerfRecord> records;
  ASSERT_TRUE(format::for_each_perf_data_record(*f, [&](const PerfRecord& r) { records.push_back(r); }));
  ASSERT_EQ(records.size(), 3u);
  EXPECT_EQ(std::get<format::PerfMmap>(records[0]).time, 3u);  // read before the IDENTIFIER that ends it
  EXPECT_EQ(std::get<format::PerfSample>(records[1]).id, 2u);
  const auto& last = std::get<format::PerfSample>(records[2]);
  EXPECT_EQ(last.id, 3u);
  EXPECT_EQ(format::perf_callchain_returns(last), std::vector<uint64_t>{0x400400});

  const auto unknown = perf_data({plain, chained}, {sample(5, 0x400010, 50).bytes()});
  auto g = format::read_perf_data(unknown);
  ASSERT_TRUE(g);
  auto bad = format::for_each_perf_data_record(*g, [](const PerfRecord&) {});
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().message.find("event id 5"), std::string::npos) << bad.error().message;
}

TEST(PerfDataFile, EveryFieldBeforeTheBranchStackIsSkippedByItsSize) {
  format::PerfSampleLayout layout;
  layout.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ADDR | PERF_SAMPLE_ID |
                       PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD | PERF_SAMPLE_READ |
                       PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_RAW | PERF_SAMPLE_BRANCH_STACK;
  layout.read_format = PERF_FORMAT_GROUP | PERF_FORMAT_ID | PERF_FORMAT_TOTAL_TIME_ENABLED;
  RecordBytes r(PERF_RECORD_SAMPLE);
  r.u64(0x1000).u32(1).u32(2).u64(9);               // ip, pid, tid, time
  r.u64(0xadd).u64(44).u64(55).u32(1).u32(0).u64(100);  // addr, id, stream id, cpu, period
  r.u64(2).u64(1000).u64(1).u64(11).u64(2).u64(22);  // read: 2 counters, time enabled, (value, id) each
  r.u64(1).u64(0x2000);                               // call chain
  r.u32(4).u32(0xabcdef);                             // raw: 4 bytes
  r.u64(1).u64(0x3000).u64(0x1000).u64(0);            // branch stack
  auto parsed = format::parse_perf_record(r.bytes(), layout);
  ASSERT_TRUE(parsed) << parsed.error().describe();
  const auto& s = std::get<format::PerfSample>(*parsed);
  EXPECT_EQ(s.id, 44u);
  EXPECT_EQ(s.time, 9u);
  EXPECT_EQ(s.callchain, std::vector<uint64_t>{0x2000});
  ASSERT_EQ(s.branches.size(), 1u);
  EXPECT_EQ(s.branches[0].from, 0x3000u);

  // The same record cut inside its read values is an error, not a read past it.
  auto bytes = r.bytes();
  bytes.resize(8 + 8 * 9 + 16);
  uint16_t size = uint16_t(bytes.size());
  std::memcpy(bytes.data() + 6, &size, 2);
  EXPECT_FALSE(format::parse_perf_record(bytes, layout));
}

TEST(PerfDataFile, MmapRecordsAreExecutableUnlessMarkedData) {
  format::PerfSampleLayout layout = format::perf_ring_layout(false, false);
  auto code = RecordBytes(PERF_RECORD_MMAP).u32(1).u32(1).u64(0x1000).u64(0x2000).u64(0).string("/bin/x").sample_id(1, 1, 8);
  auto data = RecordBytes(PERF_RECORD_MMAP, PERF_RECORD_MISC_MMAP_DATA).u32(1).u32(1).u64(0x9000).u64(0x1000).u64(0).string("/d").sample_id(1, 1, 9);
  auto a = format::parse_perf_record(code.bytes(), layout);
  auto b = format::parse_perf_record(data.bytes(), layout);
  ASSERT_TRUE(a && b);
  EXPECT_TRUE(std::get<format::PerfMmap>(*a).prot & PROT_EXEC);
  EXPECT_EQ(std::get<format::PerfMmap>(*a).time, 8u);
  EXPECT_EQ(std::get<format::PerfMmap>(*a).path, "/bin/x");
  EXPECT_FALSE(std::get<format::PerfMmap>(*b).prot & PROT_EXEC);
}

std::string error_of(const std::vector<uint8_t>& file) {
  auto f = format::read_perf_data(file);
  if (!f) return f.error().message;
  auto r = format::for_each_perf_data_record(*f, [](const PerfRecord&) {});
  return r ? std::string() : r.error().message;
}

TEST(PerfDataFile, DamagedAndUnsupportedFilesAreRefusedByName) {
  const auto good = perf_data({branch_event()}, branch_records());
  EXPECT_EQ(error_of(good), "");
  const std::string text = "24681/24681 0x401000 0x401000/0x401010/P/-/-/0\n";
  EXPECT_NE(error_of({text.begin(), text.end()}).find("not a perf.data file"), std::string::npos);

  auto swapped = good;
  std::memcpy(swapped.data(), "2ELIFREP", 8);
  EXPECT_NE(error_of(swapped).find("big-endian"), std::string::npos);

  auto pipe = good;
  put64(pipe, 8, 16);
  EXPECT_NE(error_of(pipe).find("pipe"), std::string::npos);

  EXPECT_NE(error_of({good.begin(), good.begin() + 60}).find("cut short"), std::string::npos);

  auto past = good;
  put64(past, 48, good.size());  // the data section's size
  EXPECT_NE(error_of(past).find("past the file's end"), std::string::npos);

  auto attr_size = good;
  put64(attr_size, 16, 100);
  EXPECT_NE(error_of(attr_size).find("attr entries"), std::string::npos);

  auto compressed = perf_data({branch_event()}, {RecordBytes(kCompressed).u64(0).bytes()});
  EXPECT_NE(error_of(compressed).find("perf record -z"), std::string::npos);

  RecordBytes aux(kAuxtrace);
  aux.u64(1 << 20).u64(0).u64(0).u32(0).u32(0).u32(0).u32(0);
  EXPECT_NE(error_of(perf_data({branch_event()}, {aux.bytes()})).find("AUXTRACE"), std::string::npos);

  auto overrun = branch_sample(10, 0x400100, 30, 0x4000f0);
  overrun.resize(overrun.size() - 8);  // the header still says the whole size
  const auto cut = perf_data({branch_event()}, {overrun});
  EXPECT_NE(error_of(cut).find("does not fit"), std::string::npos);

  Event a{attr(PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME), {1}};
  Event b{attr(PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CALLCHAIN), {2}};
  EXPECT_NE(error_of(perf_data({a, b}, {})).find("no PERF_SAMPLE_IDENTIFIER"), std::string::npos);

  // Events whose id sections all span the whole file (memory would grow
  // with their number times its size).
  Event c{attr(kBranchType), {1}}, d{attr(kBranchType), {2}};
  auto overlapping = perf_data({c, d}, branch_records());
  const size_t entry = sizeof(perf_event_attr) + 16;
  for (size_t i = 0; i < 2; ++i) {
    put64(overlapping, 104 + i * entry + sizeof(perf_event_attr), 0);
    put64(overlapping, 104 + i * entry + sizeof(perf_event_attr) + 8, overlapping.size() / 8 * 8);
  }
  EXPECT_NE(error_of(overlapping).find("more counter ids than the file holds"), std::string::npos);

  Event no_tid{attr(PERF_SAMPLE_IP | PERF_SAMPLE_TIME), {1}};
  auto rec = sample::import_perf_data(perf_data({no_tid}, {}));
  ASSERT_FALSE(rec);
  EXPECT_NE(rec.error().message.find("lack the IP or the thread"), std::string::npos) << rec.error().message;
}

}  // namespace
}  // namespace covkit
