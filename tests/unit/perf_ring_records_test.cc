// perf_event_open's ring read as the kernel fills it: a data area whose
// size is a power of two, head and tail counting bytes for ever, records
// (and their headers) running across the area's end. A fake ring here is
// fed lap after lap, read after each few records, and every record must
// come back whole and in order; the real ring is wrapped by
// tests/sample_record's perf_ring_wraps scenario (--mmap-pages 1).
#include <gtest/gtest.h>
#include <linux/perf_event.h>

#include <cstring>
#include <vector>

#include "format/perf_event_records.h"
#include "perf_record_bytes.h"
#include "sample/perf_event_session.h"

namespace covkit {
namespace perf_ring_records_test {

using testing::RecordBytes;

const format::PerfSampleLayout kPcLayout = format::perf_ring_layout(true, false);

// A PERF_RECORD_SAMPLE of the cpu-clock layout: IP, TID, TIME, call chain.
std::vector<uint8_t> pc_sample(uint64_t ip, uint32_t tid, uint64_t time, size_t frames) {
  RecordBytes r(PERF_RECORD_SAMPLE);
  r.u64(ip).u32(tid).u32(tid).u64(time).u64(frames);
  for (size_t i = 0; i < frames; ++i) r.u64(0x1000 + i);
  return r.bytes();
}

// The kernel's side: writes at head, wrapping.
struct FakeRing {
  explicit FakeRing(size_t size) : data(size, 0xee) {}
  void write(const std::vector<uint8_t>& record) {
    for (uint8_t b : record) data[head++ & (data.size() - 1)] = b;
  }
  std::vector<uint8_t> data;
  uint64_t head = 0;
};

TEST(PerfRingRecords, RecordsAcrossTheEndLapAfterLap) {
  FakeRing ring(256);
  std::vector<uint8_t> scratch;
  std::vector<format::PerfRecord> out;
  std::vector<std::string> warnings;
  uint64_t tail = 0, written = 0;
  size_t crossed = 0;
  // Sizes 40..88 bytes, never a divisor of 256: records and headers land
  // across the end at every offset in turn. Read every two records, as the
  // kernel never writes over what was not read.
  for (uint64_t i = 0; i < 400; ++i) {
    const auto rec = pc_sample(0x400000 + i, 7, 1000 + i, i % 7);
    if ((ring.head & 255) + rec.size() > 256) ++crossed;
    ring.write(rec);
    written += rec.size();
    if (i % 2 == 1) tail = sample::read_ring_records(ring.data, ring.head, tail, kPcLayout, scratch, out, warnings);
  }
  tail = sample::read_ring_records(ring.data, ring.head, tail, kPcLayout, scratch, out, warnings);
  EXPECT_EQ(tail, ring.head);
  EXPECT_GT(written, 50 * ring.data.size());  // many laps
  EXPECT_GT(crossed, 50u);
  EXPECT_TRUE(warnings.empty()) << warnings.front();
  ASSERT_EQ(out.size(), 400u);
  for (uint64_t i = 0; i < 400; ++i) {
    const auto& s = std::get<format::PerfSample>(out[i]);
    EXPECT_EQ(s.ip, 0x400000 + i);
    EXPECT_EQ(s.time, 1000 + i);
    EXPECT_EQ(s.callchain.size(), i % 7);
  }
}

TEST(PerfRingRecords, AHeaderSplitAtTheEndIsReadWhole) {
  FakeRing ring(128);
  // Place the next record's header 4 bytes before the end.
  ring.head = 124;
  const uint64_t tail = 124;
  const auto rec = pc_sample(0xabc, 3, 5, 2);
  ring.write(rec);
  std::vector<uint8_t> scratch;
  std::vector<format::PerfRecord> out;
  std::vector<std::string> warnings;
  EXPECT_EQ(sample::read_ring_records(ring.data, ring.head, tail, kPcLayout, scratch, out, warnings), ring.head);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(std::get<format::PerfSample>(out[0]).ip, 0xabcu);
  EXPECT_TRUE(warnings.empty());
}

TEST(PerfRingRecords, AHeaderThatMakesNoSenseEndsTheRead) {
  FakeRing ring(256);
  ring.write(pc_sample(0x10, 1, 1, 0));
  std::vector<uint8_t> scratch;
  std::vector<format::PerfRecord> out;
  std::vector<std::string> warnings;
  // A header claiming more than the ring holds: the rest is given up, said once.
  std::vector<uint8_t> bad(16, 0);
  perf_event_header h{PERF_RECORD_SAMPLE, 0, 4000};
  std::memcpy(bad.data(), &h, sizeof h);
  ring.write(bad);
  EXPECT_EQ(sample::read_ring_records(ring.data, ring.head, 0, kPcLayout, scratch, out, warnings), ring.head);
  EXPECT_EQ(out.size(), 1u);
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_NE(warnings[0].find("4000 bytes"), std::string::npos) << warnings[0];
}

}  // namespace perf_ring_records_test
}  // namespace covkit
