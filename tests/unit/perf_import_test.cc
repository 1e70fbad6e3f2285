// perf script branch stacks into a SampleRecording (sample/perf_script_import).
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <sstream>

#include "sample/perf_script_import.h"

namespace covkit::sample {
namespace perf_import_test {

std::string data_file() {
  std::ifstream f(std::string(COVKIT_TEST_DATA_DIR) + "/perf/brstack.txt");
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

TEST(PerfImport, SamplesImagesAndOldestFirstBranches) {
  auto rec = import_perf_script(data_file(), {});
  ASSERT_TRUE(rec) << rec.error().message;
  EXPECT_EQ(rec->mode, "perf");
  ASSERT_EQ(rec->images.size(), 2u);  // pids 4242 and 4250
  EXPECT_EQ(rec->images[0].pid, 4242);
  EXPECT_EQ(rec->images[1].pid, 4250);
  ASSERT_EQ(rec->samples.size(), 4u);
  const format::Sample& s = rec->samples[0];
  EXPECT_EQ(s.tid, 4242);
  EXPECT_EQ(s.ip, 0x401136u);
  ASSERT_EQ(s.branches.size(), 3u);
  EXPECT_EQ(s.branches[0].from, 0x401150u);  // perf's last entry is the oldest
  EXPECT_EQ(s.branches[0].to, 0x401120u);
  EXPECT_EQ(s.branches[2].from, 0x40114au);
  EXPECT_EQ(rec->samples[1].tid, 4243);
  EXPECT_EQ(rec->samples[1].image, 0u);
  EXPECT_EQ(rec->samples[2].image, 1u);
  EXPECT_EQ(rec->samples[2].branches.size(), 2u);  // newer perf's extra fields ignored
  EXPECT_EQ(rec->samples[2].branches[1].to, 0x401170u);
  EXPECT_TRUE(rec->samples[3].branches.empty());
  EXPECT_EQ(rec->vector_length, 3u);
  EXPECT_EQ(rec->warnings.size(), 1u);  // no --binary
}

TEST(PerfImport, BinaryGivesMappings) {
  auto rec = import_perf_script("1/1 1000\n", {"/proc/self/exe"});
  ASSERT_TRUE(rec) << rec.error().message;
  ASSERT_EQ(rec->images.size(), 1u);
  ASSERT_FALSE(rec->images[0].mappings.empty());
  for (const auto& m : rec->images[0].mappings) EXPECT_LT(m.start, m.end);
  EXPECT_TRUE(rec->warnings.empty());
}

TEST(PerfImport, ErrorsNameTheLine) {
  auto bad = [](std::string_view text) {
    auto rec = import_perf_script(text, {});
    return rec ? std::string() : rec.error().message;
  };
  EXPECT_NE(bad("1/1 401000\nx/1 401000\n").find("line 2"), std::string::npos);
  EXPECT_NE(bad("1/1 zz\n").find("not a hex address"), std::string::npos);
  EXPECT_NE(bad("1/1 1000 0x10-0x20\n").find("branch entry 1"), std::string::npos);
  EXPECT_NE(bad("1/1\n").find("expected PID/TID IP"), std::string::npos);
  EXPECT_FALSE(import_perf_script("", {"/nonexistent/binary"}));
}

}  // namespace
}  // namespace covkit::sample

#include "sample/steps_to_branches.h"

namespace covkit::sample {
namespace perf_import_test {

TEST(StepsToBranches, LengthsDecideWhatWasTaken) {
  // 0x10 (2 bytes) -> 0x12 (5 bytes, a jump) -> 0x40 (rep: itself) -> 0x40 -> 0x43 (3 bytes) -> 0x80
  std::map<uint64_t, uint32_t> len = {{0x10, 2}, {0x12, 5}, {0x40, 3}, {0x43, 3}};
  auto length = [&](uint64_t a) -> std::optional<uint32_t> {
    auto it = len.find(a);
    if (it == len.end()) return std::nullopt;
    return it->second;
  };
  auto b = steps_to_branches({0x10, 0x12, 0x40, 0x40, 0x43, 0x80}, length);
  ASSERT_EQ(b.size(), 2u);
  EXPECT_EQ(b[0].from, 0x12u);
  EXPECT_EQ(b[0].to, 0x40u);
  EXPECT_EQ(b[1].from, 0x43u);
  EXPECT_EQ(b[1].to, 0x80u);
  // A 4-byte jump to the next 4 bytes is no taken branch by length; with no
  // lengths known, only far or backward moves count.
  EXPECT_TRUE(steps_to_branches({0x10, 0x14}, [](uint64_t) { return std::nullopt; }).empty());
  EXPECT_EQ(steps_to_branches({0x10, 0x8}, [](uint64_t) { return std::nullopt; }).size(), 1u);
  // Real lengths: the branch at 0x12 is a 2-byte jump here.
  len[0x12] = 2;
  EXPECT_EQ(steps_to_branches({0x10, 0x12, 0x14}, length).size(), 0u);
}

}  // namespace
}  // namespace covkit::sample
