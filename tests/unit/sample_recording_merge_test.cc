// sample/recording_merge: recordings added together keep every piece of
// evidence attached to the image it came from.
#include "sample/recording_merge.h"

#include <gtest/gtest.h>

namespace covkit::sample {
namespace sample_recording_merge_test {

format::SampleRecording recording(const std::string& mode, int32_t pid, uint64_t address) {
  format::SampleRecording r;
  r.mode = mode;
  for (uint32_t id = 0; id < 2; ++id) {
    format::SampleImage image;
    image.id = id;
    image.pid = pid + int32_t(id);
    r.images.push_back(image);
  }
  format::Sample s;
  s.image = 1;
  s.ip = address;
  r.samples.push_back(s);
  r.hits.push_back({1, address});
  r.planted.push_back({0, address + 1});
  r.lost = 2;
  return r;
}

TEST(SampleRecordingMerge, ImagesRenumberedAndEvidenceFollows) {
  format::SampleRecording m = merge_recordings({recording("branch", 100, 0x10), recording("branch", 200, 0x20)});
  ASSERT_EQ(m.images.size(), 4u);
  for (uint32_t i = 0; i < 4; ++i) EXPECT_EQ(m.images[i].id, i);
  EXPECT_EQ(m.images[3].pid, 201);
  ASSERT_EQ(m.samples.size(), 2u);
  EXPECT_EQ(m.samples[0].image, 1u);
  EXPECT_EQ(m.samples[1].image, 3u);
  EXPECT_EQ(m.samples[1].ip, 0x20u);
  EXPECT_EQ(m.hits[1].image, 3u);
  EXPECT_EQ(m.planted[1].image, 2u);
  EXPECT_EQ(m.planted[1].address, 0x21u);
  EXPECT_EQ(m.lost, 4u);
  EXPECT_TRUE(m.warnings.empty());
}

TEST(SampleRecordingMerge, DifferentModesAreNoted) {
  format::SampleRecording m = merge_recordings({recording("branch", 1, 1), recording("pc", 2, 2)});
  ASSERT_EQ(m.warnings.size(), 1u);
  EXPECT_NE(m.warnings[0].find("branch and pc"), std::string::npos) << m.warnings[0];
  EXPECT_EQ(m.samples.size(), 2u);
}

TEST(SampleRecordingMerge, NothingGivesAnEmptyRecording) {
  EXPECT_TRUE(merge_recordings({}).images.empty());
}

}  // namespace
}  // namespace covkit::sample
