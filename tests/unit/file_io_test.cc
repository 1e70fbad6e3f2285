#include "util/file_io.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <string>

namespace {

// A notes file may name any path as its source: devices never end and FIFOs
// block, so only regular files are read.
TEST(FileIo, DevicesAreNotRead) {
  std::string why;
  EXPECT_FALSE(covkit::util::read_file("/dev/zero", &why));
  EXPECT_EQ(why, "not a regular file");
}

TEST(FileIo, FifoDoesNotBlock) {
  std::string path = ::testing::TempDir() + "covkit_fifo_" + std::to_string(::getpid());
  ::unlink(path.c_str());
  ASSERT_EQ(::mkfifo(path.c_str(), 0600), 0);
  EXPECT_FALSE(covkit::util::read_file(path));
  ::unlink(path.c_str());
}

TEST(FileIo, RegularFileRoundTrip) {
  std::string path = ::testing::TempDir() + "covkit_file_" + std::to_string(::getpid());
  ASSERT_TRUE(covkit::util::write_file_atomic(path, "abc\n"));
  auto data = covkit::util::read_file(path);
  ASSERT_TRUE(data);
  EXPECT_EQ(std::string(data->bytes.begin(), data->bytes.end()), "abc\n");
  ::unlink(path.c_str());
}

}  // namespace
