// The perf_event_open ring records (format/perf_event_records) and their
// turning into a recording (sample/perf_recording_builder), on records
// built here byte by byte after linux/perf_event.h: this VM has no PMU, so
// branch stacks can only be tested this way (the cpu-clock path is also
// recorded for real by tests/sample_record's perf_* scenarios).
#include <gtest/gtest.h>
#include <linux/perf_event.h>
#include <sys/mman.h>
#include <sys/sysmacros.h>

#include <cstring>
#include <string>
#include <vector>

#include "format/perf_event_records.h"
#include "perf_record_bytes.h"
#include "sample/perf_recording_builder.h"

namespace covkit {
namespace {

using format::PerfRecord;
using testing::RecordBytes;

const format::PerfSampleLayout kBoth = format::perf_ring_layout(true, true);

RecordBytes sample(uint32_t pid, uint32_t tid, uint64_t ip, uint64_t time) {
  return std::move(RecordBytes(PERF_RECORD_SAMPLE).u64(ip).u32(pid).u32(tid).u64(time));
}

// A sample with an empty call chain and branch stack (kBoth's layout).
RecordBytes bare_sample(uint32_t pid, uint32_t tid, uint64_t ip, uint64_t time) {
  return std::move(sample(pid, tid, ip, time).u64(0).u64(0));
}

RecordBytes mmap2(uint32_t pid, uint64_t start, uint64_t length, uint64_t offset, const std::string& path,
                  uint32_t prot = PROT_READ | PROT_EXEC, uint64_t time = 0) {
  RecordBytes r(PERF_RECORD_MMAP2);
  r.u32(pid).u32(pid).u64(start).u64(length).u64(offset);
  r.u32(8).u32(1).u64(4242).u64(0);  // major, minor, inode, generation
  r.u32(prot).u32(MAP_PRIVATE).string(path).sample_id(pid, pid, time);
  return r;
}

RecordBytes comm(uint32_t pid, const std::string& name, bool exec, uint64_t time = 0) {
  RecordBytes r(PERF_RECORD_COMM, exec ? PERF_RECORD_MISC_COMM_EXEC : 0);
  r.u32(pid).u32(pid).string(name).sample_id(pid, pid, time);
  return r;
}

RecordBytes task(uint32_t type, uint32_t pid, uint32_t ppid, uint32_t tid, uint32_t ptid, uint64_t time) {
  RecordBytes r(type);
  r.u32(pid).u32(ppid).u32(tid).u32(ptid).u64(time).sample_id(pid, tid, time);
  return r;
}

PerfRecord parsed(const RecordBytes& r, const format::PerfSampleLayout& layout = kBoth) {
  auto out = format::parse_perf_record(r.bytes(), layout);
  EXPECT_TRUE(out) << out.error().describe();
  return out ? *out : PerfRecord{};
}

TEST(PerfEventRecords, SampleWithCallChainAndBranchStack) {
  RecordBytes r = sample(10, 11, 0x401010, 777);
  r.u64(4).u64(uint64_t(PERF_CONTEXT_USER)).u64(0x401010).u64(0x402222).u64(0x403333);
  r.u64(2).u64(0x401000).u64(0x401010).u64(0).u64(0x400f00).u64(0x400ff0).u64(1);
  PerfRecord rec = parsed(r);
  const auto* s = std::get_if<format::PerfSample>(&rec);
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(s->pid, 10u);
  EXPECT_EQ(s->tid, 11u);
  EXPECT_EQ(s->ip, 0x401010u);
  EXPECT_EQ(s->time, 777u);
  ASSERT_EQ(s->branches.size(), 2u);
  EXPECT_EQ(s->branches[0].from, 0x401000u);  // the kernel's order: newest first
  EXPECT_EQ(s->branches[1].to, 0x400ff0u);
  EXPECT_EQ(format::perf_callchain_returns(*s), (std::vector<uint64_t>{0x402222, 0x403333}));
  EXPECT_EQ(format::perf_record_time(rec), 777u);
}

TEST(PerfEventRecords, ALayoutWithoutBranchesReadsOnlyTheCallChain) {
  RecordBytes r = sample(1, 1, 0x10, 5);
  r.u64(1).u64(0x20);
  PerfRecord rec = parsed(r, format::perf_ring_layout(true, false));
  const auto& s = std::get<format::PerfSample>(rec);
  EXPECT_TRUE(s.branches.empty());
  EXPECT_EQ(s.callchain, (std::vector<uint64_t>{0x20}));
  // A chain with no user context marker holds no user frames.
  EXPECT_TRUE(format::perf_callchain_returns(s).empty());
}

TEST(PerfEventRecords, KernelFramesAndTheSampledIpAreNotReturnAddresses) {
  format::PerfSample s;
  s.ip = 0x1000;
  s.callchain = {uint64_t(PERF_CONTEXT_KERNEL), 0xffffffff81000000, uint64_t(PERF_CONTEXT_USER), 0x1000, 0x2000, 0};
  EXPECT_EQ(format::perf_callchain_returns(s), (std::vector<uint64_t>{0x2000}));
  // A sample whose chain starts elsewhere than its IP keeps that frame.
  s.callchain = {uint64_t(PERF_CONTEXT_USER), 0x3000, 0x4000};
  EXPECT_EQ(format::perf_callchain_returns(s), (std::vector<uint64_t>{0x3000, 0x4000}));
}

TEST(PerfEventRecords, Mmap2WithDeviceAndInode) {
  PerfRecord rec = parsed(mmap2(7, 0x5000, 0x2000, 0x1000, "/usr/bin/prog", PROT_READ | PROT_EXEC, 99));
  const auto& m = std::get<format::PerfMmap>(rec);
  EXPECT_EQ(m.pid, 7u);
  EXPECT_EQ(m.start, 0x5000u);
  EXPECT_EQ(m.length, 0x2000u);
  EXPECT_EQ(m.file_offset, 0x1000u);
  EXPECT_EQ(m.major, 8u);
  EXPECT_EQ(m.minor, 1u);
  EXPECT_EQ(m.inode, 4242u);
  EXPECT_TRUE(m.build_id.empty());
  EXPECT_EQ(m.prot, uint32_t(PROT_READ | PROT_EXEC));
  EXPECT_EQ(m.path, "/usr/bin/prog");
  EXPECT_EQ(m.time, 99u);
}

TEST(PerfEventRecords, Mmap2WithBuildId) {
  RecordBytes r(PERF_RECORD_MMAP2, PERF_RECORD_MISC_MMAP_BUILD_ID);
  r.u32(3).u32(3).u64(0x7000).u64(0x1000).u64(0);
  uint8_t id[24] = {4, 0, 0, 0, 0xde, 0xad, 0xbe, 0xef};
  uint64_t words[3];
  std::memcpy(words, id, sizeof id);
  r.u64(words[0]).u64(words[1]).u64(words[2]);
  r.u32(PROT_EXEC).u32(0).string("/lib/libx.so").sample_id(3, 3, 1);
  const PerfRecord rec = parsed(r);
  const auto& m = std::get<format::PerfMmap>(rec);
  EXPECT_EQ(m.build_id, "deadbeef");
  EXPECT_EQ(m.inode, 0u);
  EXPECT_EQ(m.path, "/lib/libx.so");
}

TEST(PerfEventRecords, CommForkExitLostAndOthers) {
  const PerfRecord exec = parsed(comm(5, "prog", true, 31));
  const auto& c = std::get<format::PerfComm>(exec);
  EXPECT_TRUE(c.exec);
  EXPECT_EQ(c.name, "prog");
  EXPECT_EQ(c.time, 31u);
  EXPECT_FALSE(std::get<format::PerfComm>(parsed(comm(5, "worker", false))).exec);
  const PerfRecord fork = parsed(task(PERF_RECORD_FORK, 6, 5, 6, 5, 40));
  const auto& f = std::get<format::PerfTask>(fork);
  EXPECT_TRUE(f.fork);
  EXPECT_EQ(f.ppid, 5u);
  EXPECT_EQ(f.time, 40u);
  EXPECT_FALSE(std::get<format::PerfTask>(parsed(task(PERF_RECORD_EXIT, 6, 5, 6, 5, 41))).fork);
  RecordBytes lost(PERF_RECORD_LOST);
  lost.u64(1).u64(12).sample_id(0, 0, 50);
  EXPECT_EQ(std::get<format::PerfLost>(parsed(lost)).count, 12u);
  RecordBytes lost_samples(PERF_RECORD_LOST_SAMPLES);
  lost_samples.u64(3).sample_id(0, 0, 51);
  EXPECT_EQ(std::get<format::PerfLost>(parsed(lost_samples)).count, 3u);
  RecordBytes throttle(PERF_RECORD_THROTTLE);
  throttle.u64(1).u64(2).u64(3);
  EXPECT_TRUE(std::holds_alternative<std::monostate>(parsed(throttle)));
}

TEST(PerfEventRecords, DamagedRecordsAreErrorsWithTheirPlace) {
  // A branch stack that claims more entries than the record holds.
  RecordBytes r = sample(1, 1, 0x10, 5);
  r.u64(0).u64(1000).u64(1).u64(2);
  auto bad = format::parse_perf_record(r.bytes(), kBoth);
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().message.find("branch stack of 1000 entries"), std::string::npos) << bad.error().message;
  EXPECT_EQ(bad.error().offset, 48u);  // just past the count
  // A call chain as long as 2^61 entries: its size in bytes would wrap.
  RecordBytes huge = sample(1, 1, 0x10, 5);
  huge.u64(uint64_t(1) << 61);
  EXPECT_FALSE(format::parse_perf_record(huge.bytes(), kBoth));
  // A file name without its NUL.
  RecordBytes name(PERF_RECORD_COMM);
  name.u32(1).u32(1).u64(0x4141414141414141);
  EXPECT_FALSE(format::parse_perf_record(name.bytes(), kBoth));
  // Fields cut short, and a header whose size is not the record's.
  RecordBytes cut(PERF_RECORD_FORK);
  cut.u32(1).u32(1);
  EXPECT_FALSE(format::parse_perf_record(cut.bytes(), kBoth));
  std::vector<uint8_t> bytes = comm(1, "x", false).bytes();
  EXPECT_FALSE(format::parse_perf_record(std::span(bytes).first(bytes.size() - 8), kBoth));
  EXPECT_FALSE(format::parse_perf_record(std::span(bytes).first(4), kBoth));
}

TEST(PerfEventRecords, RecordsEndToEnd) {
  std::vector<uint8_t> bytes;
  for (const RecordBytes& r : {comm(1, "a", true), mmap2(1, 0x1000, 0x1000, 0, "/a")}) {
    auto b = r.bytes();
    bytes.insert(bytes.end(), b.begin(), b.end());
  }
  std::vector<PerfRecord> out;
  ASSERT_TRUE(format::parse_perf_records(bytes, kBoth, out));
  ASSERT_EQ(out.size(), 2u);
  EXPECT_TRUE(std::holds_alternative<format::PerfMmap>(out[1]));
  // A header that overruns the bytes names the record's offset.
  const size_t first = comm(1, "a", true).bytes().size();
  bytes.resize(bytes.size() - 1);
  out.clear();
  auto bad = format::parse_perf_records(bytes, kBoth, out);
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().offset, first);
  EXPECT_EQ(out.size(), 1u);
}

// The builder: processes, images and samples as the runtime would write them.
class PerfBuilderTest : public ::testing::Test {
 protected:
  void add(const RecordBytes& r) { builder.add(parsed(r), now += 1000); }
  std::vector<std::string> looked_up;
  format::SampleRecording rec;
  sample::PerfRecordingBuilder builder{rec,
                                       [this](const format::PerfMmap& m) {
                                         looked_up.push_back(m.path);
                                         return m.path == "/bin/prog" ? std::string("abcd") : std::string();
                                       },
                                       100, "/bin/prog"};
  uint64_t now = 0;
};

TEST_F(PerfBuilderTest, TheRootsExecMappingsAndSamples) {
  add(comm(100, "prog", true));
  add(mmap2(100, 0x555000, 0x1000, 0x1000, "/bin/prog"));
  add(mmap2(100, 0x7f0000, 0x2000, 0x2000, "/lib/libc.so.6"));
  add(mmap2(100, 0x7f8000, 0x1000, 0, "[vdso]"));
  add(mmap2(100, 0x600000, 0x1000, 0, "/bin/prog", PROT_READ));  // data: not listed
  add(mmap2(100, 0x700000, 0x1000, 0, "//anon"));                // a JIT's code: no file
  RecordBytes s = sample(100, 101, 0x555010, 9);
  s.u64(4).u64(uint64_t(PERF_CONTEXT_USER)).u64(0x555010).u64(0x7f0100).u64(0xc308c48348c031ff);
  s.u64(3).u64(0x555008).u64(0x555010).u64(0).u64(0x555100).u64(0x555000).u64(0).u64(0x7f0010).u64(0x555100).u64(0);
  add(s);
  builder.root_ended(true);
  builder.finish();
  ASSERT_EQ(rec.images.size(), 1u);
  const format::SampleImage& image = rec.images[0];
  EXPECT_EQ(image.pid, 100);
  EXPECT_EQ(image.executable, "/bin/prog");
  EXPECT_TRUE(image.ended);
  ASSERT_EQ(image.mappings.size(), 3u);
  EXPECT_EQ(image.mappings[0].path, "/bin/prog");
  EXPECT_EQ(image.mappings[0].build_id, "abcd");
  EXPECT_EQ(image.mappings[0].dev, makedev(8, 1));
  EXPECT_EQ(image.mappings[0].inode, 4242u);
  EXPECT_EQ(image.mappings[0].file_offset, 0x1000u);
  EXPECT_EQ(image.mappings[1].end, 0x7f2000u);
  EXPECT_EQ(image.mappings[2].path, "[vdso]");
  EXPECT_EQ(looked_up, (std::vector<std::string>{"/bin/prog", "/lib/libc.so.6"}));  // once each, never [vdso]
  ASSERT_EQ(rec.samples.size(), 1u);
  const format::Sample& out = rec.samples[0];
  EXPECT_EQ(out.tid, 101);
  // Oldest first; the garbage frame (no frame pointers) ends the stack.
  ASSERT_EQ(out.branches.size(), 3u);
  EXPECT_EQ(out.branches[0].from, 0x7f0010u);
  EXPECT_EQ(out.branches[2].to, 0x555010u);
  EXPECT_EQ(out.stack, (std::vector<uint64_t>{0x7f0100}));
  EXPECT_EQ(rec.vector_length, 3u);
}

TEST_F(PerfBuilderTest, ForksCopyTheParentAndExecsStartAfresh) {
  add(mmap2(100, 0x555000, 0x1000, 0, "/bin/prog"));  // before its COMM: the same image
  add(comm(100, "prog", true));
  add(bare_sample(100, 100, 0x555010, 1));
  add(task(PERF_RECORD_FORK, 100, 100, 103, 100, 2));  // a thread: no new image
  add(task(PERF_RECORD_FORK, 50, 100, 50, 100, 3));    // a child with a smaller pid
  add(bare_sample(50, 50, 0x555020, 4));
  add(comm(50, "other", true));
  add(mmap2(50, 0x400000, 0x1000, 0, "/bin/other"));
  add(bare_sample(50, 50, 0x400010, 5));
  add(task(PERF_RECORD_EXIT, 50, 100, 50, 100, 6));
  add(task(PERF_RECORD_EXIT, 100, 100, 103, 103, 7));  // a thread's end: not the process's
  RecordBytes lost(PERF_RECORD_LOST);
  lost.u64(1).u64(7).sample_id(0, 0, 8);
  add(lost);
  builder.root_ended(false);  // killed
  builder.finish();
  ASSERT_EQ(rec.images.size(), 3u);
  // (pid, n) order, as the files are numbered: pid 50's two images first.
  EXPECT_EQ(rec.images[0].pid, 50);
  EXPECT_EQ(rec.images[0].ppid, 100);
  EXPECT_EQ(rec.images[0].executable, "/bin/prog");
  ASSERT_EQ(rec.images[0].mappings.size(), 1u);
  EXPECT_EQ(rec.images[0].mappings[0].path, "/bin/prog");
  EXPECT_FALSE(rec.images[0].ended);
  EXPECT_EQ(rec.images[1].pid, 50);
  EXPECT_EQ(rec.images[1].ppid, 100);
  EXPECT_EQ(rec.images[1].executable, "/bin/other");
  ASSERT_EQ(rec.images[1].mappings.size(), 1u);
  EXPECT_EQ(rec.images[1].mappings[0].path, "/bin/other");
  EXPECT_TRUE(rec.images[1].ended);
  EXPECT_EQ(rec.images[2].pid, 100);
  EXPECT_EQ(rec.images[2].executable, "/bin/prog");
  EXPECT_FALSE(rec.images[2].ended);
  for (size_t i = 0; i < rec.images.size(); ++i) EXPECT_EQ(rec.images[i].id, i);
  ASSERT_EQ(rec.samples.size(), 3u);
  EXPECT_EQ(rec.samples[0].image, 2u);  // renumbered with their images
  EXPECT_EQ(rec.samples[1].image, 0u);
  EXPECT_EQ(rec.samples[2].image, 1u);
  EXPECT_EQ(rec.lost, 7u);
}

TEST_F(PerfBuilderTest, AMappingReplacesWhatItCovers) {
  add(comm(100, "prog", true));
  add(mmap2(100, 0x1000, 0x3000, 0, "/lib/old.so"));
  add(mmap2(100, 0x2000, 0x1000, 0, "/lib/new.so"));
  builder.finish();
  ASSERT_EQ(rec.images.size(), 1u);
  ASSERT_EQ(rec.images[0].mappings.size(), 1u);
  EXPECT_EQ(rec.images[0].mappings[0].path, "/lib/new.so");
}

}  // namespace
}  // namespace covkit
