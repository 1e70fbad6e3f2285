// The sample recording reader and writer (format/sample_recording_*):
// round trip, and every kind of damage a file can have becomes an error
// naming the file and the byte offset.
#include <gtest/gtest.h>

#include <cstring>

#include "format/sample_recording_reader.h"
#include "format/sample_recording_writer.h"
#include "runtime/sample/sample_contract.h"
#include "test_support.h"

namespace covkit::format {
namespace sample_recording_test {

SampleRecording example() {
  SampleRecording r;
  r.mode = "branch";
  r.period_ns = 5'000'000;
  r.vector_length = 16;
  r.command = {"./prog", "a b", "x"};
  r.start_time = "2026-01-02T03:04:05Z";
  r.covkit_version = "9.9";
  for (int32_t pid : {100, 100, 200}) {
    SampleImage im;
    im.id = static_cast<uint32_t>(r.images.size());
    im.pid = pid;
    im.ppid = 7;
    im.start_ns = 1234 + im.id;
    im.ended = im.id != 1;
    im.executable = "/bin/prog" + std::to_string(im.id);
    im.mappings.push_back({0x1000, 0x2000, 0x1000, "/bin/prog", "0badc0de", 3, 99});
    im.mappings.push_back({0x7f0000, 0x7f8000, 0, "/lib/libc.so.6", "", 0, 0});
    r.images.push_back(im);
  }
  Sample s;
  s.image = 0;
  s.tid = 101;
  s.ip = 0x1010;
  s.stack = {0x1500, 0x1600};
  s.steps = {0x1010, 0x1013, 0x1020, 0x1024};
  s.stop = CKS_SAMPLE_STOP_VECTOR;
  r.samples.push_back(s);
  s.image = 2;
  s.steps.clear();
  s.branches = {{0x1100, 0x1000}, {0x1050, 0x1010}};
  s.stop = 0;
  r.samples.push_back(s);
  r.hits.push_back({1, 0x1100});
  r.planted.push_back({1, 0x1100});
  r.planted.push_back({1, 0x1200});
  r.lost = 3;
  r.warnings = {"something odd"};
  return r;
}

TEST(SampleRecording, RoundTrip) {
  testing::TempDir dir;
  SampleRecording in = example();
  ASSERT_TRUE(write_sample_recording(dir.path(), in));
  auto out = read_sample_recording(dir.path());
  ASSERT_TRUE(out) << out.error().message;
  EXPECT_EQ(out->mode, in.mode);
  EXPECT_EQ(out->period_ns, in.period_ns);
  EXPECT_EQ(out->vector_length, in.vector_length);
  EXPECT_EQ(out->command, in.command);
  EXPECT_EQ(out->start_time, in.start_time);
  EXPECT_EQ(out->covkit_version, in.covkit_version);
  EXPECT_EQ(out->lost, in.lost);
  EXPECT_EQ(out->warnings, in.warnings);
  ASSERT_EQ(out->images.size(), in.images.size());
  for (size_t i = 0; i < in.images.size(); ++i) {
    const SampleImage &a = in.images[i], &b = out->images[i];
    EXPECT_EQ(b.id, a.id);
    EXPECT_EQ(b.pid, a.pid);
    EXPECT_EQ(b.ppid, a.ppid);
    EXPECT_EQ(b.start_ns, a.start_ns);
    EXPECT_EQ(b.ended, a.ended);
    EXPECT_EQ(b.executable, a.executable);
    ASSERT_EQ(b.mappings.size(), a.mappings.size());
    for (size_t k = 0; k < a.mappings.size(); ++k) {
      EXPECT_EQ(b.mappings[k].start, a.mappings[k].start);
      EXPECT_EQ(b.mappings[k].end, a.mappings[k].end);
      EXPECT_EQ(b.mappings[k].file_offset, a.mappings[k].file_offset);
      EXPECT_EQ(b.mappings[k].path, a.mappings[k].path);
      EXPECT_EQ(b.mappings[k].build_id, a.mappings[k].build_id);
      EXPECT_EQ(b.mappings[k].dev, a.mappings[k].dev);
      EXPECT_EQ(b.mappings[k].inode, a.mappings[k].inode);
    }
  }
  EXPECT_EQ(out->images[1].file, "100-1.cks");
  ASSERT_EQ(out->samples.size(), in.samples.size());
  for (size_t i = 0; i < in.samples.size(); ++i) {
    EXPECT_EQ(out->samples[i].image, in.samples[i].image);
    EXPECT_EQ(out->samples[i].tid, in.samples[i].tid);
    EXPECT_EQ(out->samples[i].ip, in.samples[i].ip);
    EXPECT_EQ(out->samples[i].stack, in.samples[i].stack);
    EXPECT_EQ(out->samples[i].steps, in.samples[i].steps);
    EXPECT_EQ(out->samples[i].stop, in.samples[i].stop);
    ASSERT_EQ(out->samples[i].branches.size(), in.samples[i].branches.size());
    for (size_t k = 0; k < in.samples[i].branches.size(); ++k) {
      EXPECT_EQ(out->samples[i].branches[k].from, in.samples[i].branches[k].from);
      EXPECT_EQ(out->samples[i].branches[k].to, in.samples[i].branches[k].to);
    }
  }
  ASSERT_EQ(out->hits.size(), 1u);
  EXPECT_EQ(out->hits[0].image, 1u);
  EXPECT_EQ(out->hits[0].address, 0x1100u);
  EXPECT_EQ(out->planted.size(), 2u);
}

// One image's file as the writer makes it, for damaging.
std::vector<uint8_t> one_file(testing::TempDir& dir) {
  SampleRecording in = example();
  EXPECT_TRUE(write_sample_recording(dir.path(), in));
  return testing::read_bytes(dir / "100-0.cks");
}

std::string read_error(const std::vector<uint8_t>& bytes) {
  SampleRecording rec;
  auto ok = read_sample_file(bytes, "100-0.cks", rec);
  return ok ? "" : ok.error().message;
}

TEST(SampleRecording, WholeFileReads) {
  testing::TempDir dir;
  EXPECT_EQ(read_error(one_file(dir)), "");
}

TEST(SampleRecording, EveryTruncationIsAnError) {
  testing::TempDir dir;
  std::vector<uint8_t> bytes = one_file(dir);
  // Cutting at a record boundary leaves valid records; cutting anywhere else
  // must be reported, with the file's name and an offset.
  size_t errors = 0;
  for (size_t cut = 0; cut < bytes.size(); ++cut) {
    std::string e = read_error(std::vector<uint8_t>(bytes.begin(), bytes.begin() + cut));
    if (cut % 8 != 0) {
      EXPECT_NE(e, "") << cut;
    }
    if (!e.empty()) {
      ++errors;
      EXPECT_NE(e.find("100-0.cks: corrupt at byte "), std::string::npos) << e;
    }
  }
  EXPECT_GT(errors, bytes.size() / 2);
}

TEST(SampleRecording, CorruptFieldsAreNamed) {
  testing::TempDir dir;
  std::vector<uint8_t> bytes = one_file(dir);
  auto damaged = [&](size_t at, uint32_t value) {
    std::vector<uint8_t> b = bytes;
    std::memcpy(b.data() + at, &value, 4);
    return read_error(b);
  };
  EXPECT_NE(damaged(0, 0x12345678).find("bad record magic"), std::string::npos);
  EXPECT_NE(damaged(8, 12).find("bad record size"), std::string::npos);
  EXPECT_NE(damaged(8, 0x7ffffff8).find("bad record size"), std::string::npos);
  EXPECT_NE(damaged(4, CKS_KIND_SAMPLE).find("does not start with an IMAGE"), std::string::npos);
  // The first mapping record follows the image record: its path size.
  uint32_t image_size;
  std::memcpy(&image_size, bytes.data() + 8, 4);
  EXPECT_NE(damaged(image_size + 4, 77).find(fmt::format("corrupt at byte {}: unknown record kind 77", image_size)),
            std::string::npos);
  EXPECT_NE(damaged(image_size + CKS_MAP_PATH_SIZE, 5000).find("does not fit"), std::string::npos);
  EXPECT_NE(damaged(image_size + CKS_MAP_BUILD_ID_SIZE, 65).find("build-id of 65"), std::string::npos);
  // A build-id within the limit but longer than what is left of the record
  // (found by fuzz_sample: the reader went on past the record's end).
  uint32_t mapping_size;
  std::memcpy(&mapping_size, bytes.data() + image_size + 8, 4);
  const uint32_t too_long = mapping_size - CKS_MAP_FIXED + 8;
  ASSERT_LE(too_long, uint32_t(CKS_MAX_BUILD_ID));
  EXPECT_NE(damaged(image_size + CKS_MAP_BUILD_ID_SIZE, too_long)
                .find(fmt::format("build-id of {} bytes does not fit the record", too_long)),
            std::string::npos);
  EXPECT_NE(damaged(image_size + CKS_MAP_END, 0).find("is empty"), std::string::npos);
  // A sample whose counts do not match its record's size.
  size_t at = 0;
  while (at < bytes.size()) {
    uint32_t kind, size;
    std::memcpy(&kind, bytes.data() + at + 4, 4);
    std::memcpy(&size, bytes.data() + at + 8, 4);
    if ((kind & 0xffff) == CKS_KIND_SAMPLE) break;
    at += size;
  }
  ASSERT_LT(at, bytes.size());
  std::string e = damaged(at + CKS_SAMPLE_NSTEPS, 0xffffffff);
  EXPECT_NE(e.find(fmt::format("corrupt at byte {}: sample of", at)), std::string::npos) << e;
}

TEST(SampleRecording, BadJsonAndNames) {
  testing::TempDir dir;
  ASSERT_TRUE(write_sample_recording(dir.path(), example()));
  ASSERT_TRUE(testing::write_text(dir / "recording.json", "{\"format\": \"covkit-sample-recording\", \"mode\": 3}"));
  auto r = read_sample_recording(dir.path());
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("recording.json"), std::string::npos);
  SampleRecording rec;
  EXPECT_FALSE(read_recording_json("[]", rec));
  EXPECT_FALSE(read_recording_json("{", rec));
  EXPECT_TRUE(parse_sample_file_name("12-0.cks"));
  EXPECT_FALSE(parse_sample_file_name("12.cks"));
  EXPECT_FALSE(parse_sample_file_name("-1-0.cks"));
  EXPECT_FALSE(parse_sample_file_name("12-0.cks.tmp"));
  EXPECT_FALSE(parse_sample_file_name("0-0.cks"));
}

// Breakpoint mode's shared hit flags and text: recognised (so that a recording that
// holds them is still a recording), never read as an image.
TEST(SampleRecording, SharedBreakpointFileNames) {
  EXPECT_TRUE(is_shared_breakpoint_file_name("8907022b21-0123456789abcdef-20005.hits"));
  EXPECT_FALSE(is_shared_breakpoint_file_name("8907022b21-0123456789abcdef-20005.hits.tmp"));
  EXPECT_FALSE(is_shared_breakpoint_file_name("8907022b21-20005.hits"));                // no path hash
  EXPECT_FALSE(is_shared_breakpoint_file_name("8907022b2-0123456789abcdef-20005.hits"));  // half a byte
  EXPECT_FALSE(is_shared_breakpoint_file_name("8907022B21-0123456789abcdef-20005.hits"));  // upper case
  EXPECT_FALSE(is_shared_breakpoint_file_name("8907022b21-0123456789abcdef-.hits"));
  EXPECT_FALSE(is_shared_breakpoint_file_name("8907022b21-0123456789abcdef-2x.hits"));
  EXPECT_TRUE(is_shared_breakpoint_file_name("8907022b21-0123456789abcdef-20005.text"));
  EXPECT_TRUE(is_shared_breakpoint_file_name("8907022b21-0123456789abcdef-20005.text.4242.tmp"));
  EXPECT_FALSE(is_shared_breakpoint_file_name("8907022b21-0123456789abcdef-20005.hits.4242.tmp"));
  EXPECT_FALSE(is_shared_breakpoint_file_name("8907022b21-0123456789abcdef-20005.text.42x.tmp"));
  EXPECT_FALSE(is_shared_breakpoint_file_name("8907022b21-0123456789abcdef-20005.text..tmp"));
  EXPECT_FALSE(is_shared_breakpoint_file_name("8907022b21-20005.text"));
  EXPECT_FALSE(is_shared_breakpoint_file_name(".text.1.tmp"));
  EXPECT_FALSE(parse_sample_file_name("8907022b21-0123456789abcdef-20005.hits"));
  testing::TempDir dir;
  ASSERT_TRUE(write_sample_recording(dir.path(), example()));
  ASSERT_TRUE(testing::write_bytes(dir / "8907022b21-0123456789abcdef-3.hits", {1, 0, 1}));
  auto r = read_sample_recording(dir.path());
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(r->images.size(), example().images.size());
}

// Planted breakpoints are written as PLANTED_SET records (ULEB128 gaps):
// gaps of every length, more sites than one record holds, and a list that
// is neither sorted nor unique come back as the sorted set.
TEST(SampleRecording, PlantedSetsRoundTrip) {
  SampleRecording in = example();
  in.planted.clear();
  std::vector<uint64_t> want;
  uint64_t a = 0x400000;
  for (uint64_t gap : {uint64_t{1}, uint64_t{127}, uint64_t{128}, uint64_t{16383}, uint64_t{16384}, uint64_t{1} << 35})
    want.push_back(a += gap);
  for (int i = 0; i < 60000; ++i) want.push_back(a += 1 + (i * 7919) % 300);  // > 64 KiB of gaps: two records
  want.push_back(~uint64_t{0});                                                 // the largest address, a 9-byte gap
  for (size_t i = want.size(); i-- > 0;) in.planted.push_back({1, want[i]});   // descending,
  in.planted.push_back({1, want[5]});                                            // with a duplicate
  in.planted.push_back({2, 0x1234});
  testing::TempDir dir;
  ASSERT_TRUE(write_sample_recording(dir.path(), in));
  auto out = read_sample_recording(dir.path());
  ASSERT_TRUE(out) << out.error().message;
  std::vector<uint64_t> got;
  for (const BlockHit& h : out->planted)
    if (h.image == 1) got.push_back(h.address);
  EXPECT_EQ(got, want);
  ASSERT_EQ(out->planted.back().image, 2u);
  EXPECT_EQ(out->planted.back().address, 0x1234u);
  // ~1.5 bytes a site, against 24 for a PLANTED record each.
  EXPECT_LT(testing::read_bytes(dir / "100-1.cks").size(), want.size() * 3);
  // A summary read counts them (each once per image) and keeps none.
  auto summary = read_sample_recording(dir.path(), SampleDetail::summary);
  ASSERT_TRUE(summary) << summary.error().message;
  EXPECT_TRUE(summary->planted.empty());
  EXPECT_EQ(summary->planted_not_kept, want.size() + 1);
  EXPECT_EQ(summary->hits.size(), out->hits.size());
}

// A file of the IMAGE record of one_file() and then `tail`.
std::string read_error_after_image(testing::TempDir& dir, const std::vector<uint8_t>& tail) {
  std::vector<uint8_t> b = one_file(dir);
  uint32_t image_size;
  std::memcpy(&image_size, b.data() + 8, 4);
  b.resize(image_size);
  b.insert(b.end(), tail.begin(), tail.end());
  return read_error(b);
}

// A PLANTED_SET record: header, count, first address, then `gaps` (raw
// ULEB128 bytes), padded to 8 unless `pad` is false.
std::vector<uint8_t> planted_set(uint32_t count, uint64_t first, std::vector<uint8_t> gaps, bool pad = true) {
  std::vector<uint8_t> r(CKS_SET_FIXED, 0);
  r.insert(r.end(), gaps.begin(), gaps.end());
  if (pad) r.resize((r.size() + 7) & ~size_t{7}, 0);
  const uint32_t head[4] = {CKS_MAGIC, CKS_KIND_PLANTED_SET, static_cast<uint32_t>(r.size()), 0};
  std::memcpy(r.data(), head, 16);
  std::memcpy(r.data() + CKS_SET_COUNT, &count, 4);
  std::memcpy(r.data() + CKS_SET_FIRST, &first, 8);
  return r;
}

TEST(SampleRecording, DamagedPlantedSetsAreNamed) {
  testing::TempDir dir;
  std::vector<uint8_t> image = one_file(dir);
  uint32_t at;
  std::memcpy(&at, image.data() + 8, 4);
  const std::string where = fmt::format("100-0.cks: corrupt at byte {}: ", at);
  auto error = [&](const std::vector<uint8_t>& record) { return read_error_after_image(dir, record); };
  EXPECT_EQ(error(planted_set(3, 0x1000, {1, 0x80, 0x01})), "");  // 0x1000, 0x1001, 0x1081
  EXPECT_EQ(error(planted_set(1, 0x1000, {})), "");
  EXPECT_EQ(error(planted_set(0, 0x1000, {})), where + "PLANTED_SET record of no address");
  EXPECT_EQ(error(planted_set(100, 0x1000, {1, 1})), where + "PLANTED_SET record of 100 addresses in 40 bytes");
  EXPECT_EQ(error(planted_set(3, 0x1000, {1, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80})),
            where + "PLANTED_SET record with a truncated or too long gap");
  EXPECT_EQ(error(planted_set(2, 0x1000, {0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x02})),
            where + "PLANTED_SET record with a truncated or too long gap");  // 65 bits
  EXPECT_EQ(error(planted_set(2, 0x1000, {0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01})),
            where + "PLANTED_SET record with a truncated or too long gap");
  EXPECT_EQ(error(planted_set(2, 0x1000, {0})), where + "PLANTED_SET record whose addresses do not ascend");
  EXPECT_EQ(error(planted_set(2, ~uint64_t{0} - 1, {2})), where + "PLANTED_SET record whose addresses do not ascend");
  EXPECT_EQ(error(planted_set(2, 0x1000, {1, 7})), where + "PLANTED_SET record with 7 bytes after its 2 addresses");
  EXPECT_EQ(error(planted_set(1, 0x1000, std::vector<uint8_t>(8, 0))),
            where + "PLANTED_SET record with 8 bytes after its 1 addresses");
  EXPECT_EQ(error(planted_set(1, 0x1000, {}, false)), "");
  std::vector<uint8_t> short_record = planted_set(1, 0x1000, {});
  short_record.resize(24);
  const uint32_t size = 24;
  std::memcpy(short_record.data() + 8, &size, 4);
  EXPECT_NE(error(short_record).find("fewer than its 32"), std::string::npos) << error(short_record);
}

// Recordings made before PLANTED_SET (one PLANTED record a site) still read.
TEST(SampleRecording, PlantedRecordsOfOlderRecordingsRead) {
  testing::TempDir dir;
  std::vector<uint8_t> tail;
  for (uint64_t address : {0x2000u, 0x1000u, 0x2000u}) {
    std::vector<uint8_t> r(CKS_HIT_FIXED, 0);
    const uint32_t head[4] = {CKS_MAGIC, CKS_KIND_PLANTED, CKS_HIT_FIXED, 0};
    std::memcpy(r.data(), head, 16);
    std::memcpy(r.data() + CKS_HIT_ADDRESS, &address, 8);
    tail.insert(tail.end(), r.begin(), r.end());
  }
  std::vector<uint8_t> b = one_file(dir);
  uint32_t image_size;
  std::memcpy(&image_size, b.data() + 8, 4);
  b.resize(image_size);
  b.insert(b.end(), tail.begin(), tail.end());
  SampleRecording rec;
  ASSERT_TRUE(read_sample_file(b, "100-0.cks", rec));
  ASSERT_EQ(rec.planted.size(), 2u);
  EXPECT_EQ(rec.planted[0].address, 0x1000u);
  EXPECT_EQ(rec.planted[1].address, 0x2000u);
  SampleRecording summary;
  ASSERT_TRUE(read_sample_file(b, "100-0.cks", summary, SampleDetail::summary));
  EXPECT_TRUE(summary.planted.empty());
  EXPECT_EQ(summary.planted_not_kept, 2u);  // 0x2000 twice in one image: once
}

TEST(SampleRecording, CorruptFileInDirectoryNamesIt) {
  testing::TempDir dir;
  ASSERT_TRUE(write_sample_recording(dir.path(), example()));
  std::vector<uint8_t> b = testing::read_bytes(dir / "200-0.cks");
  b.resize(b.size() - 4);
  ASSERT_TRUE(testing::write_bytes(dir / "200-0.cks", b));
  auto r = read_sample_recording(dir.path());
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("200-0.cks: corrupt at byte"), std::string::npos) << r.error().message;
}

}  // namespace
}  // namespace covkit::format
