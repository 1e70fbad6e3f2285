// util/atomic_output: a file written piece by piece, all or nothing (the
// streamed timeline).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "test_support.h"
#include "util/atomic_output.h"

namespace covkit {
namespace atomic_output_test {

using testing::TempDir;
namespace fs = std::filesystem;

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

TEST(AtomicOutput, PiecesAppearOnlyAtCommit) {
  TempDir dir;
  const std::string path = dir / "out.json";
  ASSERT_TRUE(testing::write_text(path, "old"));
  auto out = util::AtomicOutput::open(path);
  ASSERT_TRUE(out) << out.error().describe();
  std::string big(3 << 20, 'x');  // more than the buffer
  out->write("[");
  out->write(big);
  out->write("]");
  EXPECT_EQ(slurp(path), "old");
  ASSERT_TRUE(out->commit());
  EXPECT_EQ(slurp(path), "[" + big + "]");
  EXPECT_EQ(std::distance(fs::directory_iterator(dir.path()), fs::directory_iterator()), 1);
}

TEST(AtomicOutput, WithoutCommitNothingChanges) {
  TempDir dir;
  const std::string path = dir / "out.json";
  ASSERT_TRUE(testing::write_text(path, "old"));
  {
    auto out = util::AtomicOutput::open(path);
    ASSERT_TRUE(out);
    out->write("new");
  }
  EXPECT_EQ(slurp(path), "old");
  EXPECT_EQ(std::distance(fs::directory_iterator(dir.path()), fs::directory_iterator()), 1);
  EXPECT_FALSE(util::AtomicOutput::open(dir / "missing/x"));
}

TEST(AtomicOutput, AFullDiskIsAnErrorAtCommit) {
  auto out = util::AtomicOutput::open("/dev/full");  // a device: written through
  ASSERT_TRUE(out);
  out->write(std::string(2 << 20, 'x'));
  auto committed = out->commit();
  ASSERT_FALSE(committed);
  EXPECT_NE(committed.error().message.find("No space"), std::string::npos) << committed.error().message;
}

}  // namespace
}  // namespace covkit
