// util/atomic_output: a file written piece by piece, all or nothing (the
// streamed timeline).
#include <gtest/gtest.h>

#include <fcntl.h>
#include <sys/vfs.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "test_support.h"
#include "util/atomic_output.h"
#include "util/file_io.h"

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

// Pieces of every size around the direct-write threshold (16 KiB) and the
// buffer (1 MiB), interleaved: the bytes come out in order, each once.
TEST(AtomicOutput, MixedPieceSizesKeepTheirOrder) {
  TempDir dir;
  const std::string path = dir / "out.txt";
  auto out = util::AtomicOutput::open(path);
  ASSERT_TRUE(out) << out.error().describe();
  std::string expected;
  const size_t sizes[] = {1, 100, (16 << 10) - 1, 16 << 10, 5, (1 << 20) - 3, 7, 200000, 3, (1 << 20) + 1, 2};
  char fill = 'a';
  for (size_t n : sizes) {
    std::string piece(n, fill);
    piece.back() = '|';
    fill = fill == 'z' ? 'a' : char(fill + 1);
    out->write(piece);
    expected += piece;
  }
  ASSERT_TRUE(out->commit());
  EXPECT_EQ(slurp(path), expected);
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

// A directory in the target's place is refused at open, as open(2) refuses
// it, before anything is staged (gcov's "Could not open output file").
TEST(AtomicOutput, ADirectoryTargetIsRefusedAtOpen) {
  TempDir dir;
  fs::create_directory(dir / "out.gcov");
  auto out = util::AtomicOutput::open(dir / "out.gcov");
  ASSERT_FALSE(out);
  EXPECT_EQ(out.error().errno_value, EISDIR);
  EXPECT_EQ(std::distance(fs::directory_iterator(dir.path()), fs::directory_iterator()), 1);
}

// Interrupted while writing (Ctrl-C, kill, a closed terminal): covkit dies
// of the signal as before, and its temporary file beside the target is
// gone (it stayed, up to the size written, and the target untouched).
TEST(AtomicOutput, AnInterruptedWriteLeavesNoTemporaryFile) {
  for (int sig : {SIGINT, SIGTERM, SIGHUP}) {
    TempDir dir;
    const std::string path = dir / "out.json";
    ASSERT_TRUE(testing::write_text(path, "old"));
    EXPECT_EXIT(
        {
          auto out = util::AtomicOutput::open(path);
          if (!out) std::_Exit(3);
          out->write(std::string(3 << 20, 'x'));  // flushed into the temporary file
          std::raise(sig);
          std::_Exit(4);  // not reached
        },
        ::testing::KilledBySignal(sig), "");
    EXPECT_EQ(slurp(path), "old") << sig;
    EXPECT_EQ(std::distance(fs::directory_iterator(dir.path()), fs::directory_iterator()), 1) << sig;
  }
}

// A link is followed, never replaced: the file it leads to gets the output
// (staged beside it), the link stays. Under /proc (and /dev: /dev/stdout) a
// link is a descriptor's file, written through: a rename there replaced
// /dev/stdout itself for the whole machine when covkit ran as root.
TEST(AtomicOutput, ALinkIsFollowedNotReplaced) {
  TempDir dir;
  const std::string real = dir / "real.info", link = dir / "link.info";
  ASSERT_TRUE(testing::write_text(real, "old"));
  fs::create_symlink("real.info", link);
  auto out = util::AtomicOutput::open(link);
  ASSERT_TRUE(out) << out.error().describe();
  out->write("new");
  ASSERT_TRUE(out->commit());
  EXPECT_TRUE(fs::is_symlink(link));
  EXPECT_EQ(slurp(real), "new");
  EXPECT_EQ(std::distance(fs::directory_iterator(dir.path()), fs::directory_iterator()), 2);

  fs::create_symlink("nowhere", dir / "dangling.info");
  EXPECT_FALSE(util::AtomicOutput::open(dir / "dangling.info"));

  const std::string redirected = dir / "redirected.txt";
  const int fd = ::open(redirected.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(::write(fd, "table\n", 6), 6);
  auto through = util::AtomicOutput::open("/proc/self/fd/" + std::to_string(fd));
  ASSERT_TRUE(through) << through.error().describe();
  through->write("lcov\n");
  ASSERT_TRUE(through->commit());
  ::close(fd);
  EXPECT_EQ(slurp(redirected), "table\nlcov\n");
}

// A file of the kernel's (/proc/version): its temporary file beside it
// cannot be created, and /proc says "No such file or directory" for that,
// which named no real cause; the line says /proc is the kernel's.
TEST(AtomicOutput, AFileInTheKernelsFileSystemsSaysSo) {
  struct statfs fs {};
  if (::statfs("/proc", &fs) != 0 || fs.f_type != 0x9fa0) GTEST_SKIP() << "no proc file system on /proc";
  for (const char* target : {"/proc/version", "/proc/new.info", "/proc/self/status"}) {
    auto out = util::AtomicOutput::open(target);
    ASSERT_FALSE(out) << target;
    EXPECT_EQ(out.error().message.find("No such file"), std::string::npos) << out.error().message;
    EXPECT_NE(out.error().message.find("is in the kernel's proc file system, where no file can be created"),
              std::string::npos)
        << out.error().message;
  }
  EXPECT_EQ(util::AtomicOutput::open("/proc/version").error().message,
            "/proc is in the kernel's proc file system, where no file can be created");
  // Elsewhere the errno is the cause.
  EXPECT_EQ(util::creation_failure("/tmp", ENOENT), "No such file or directory");
  EXPECT_EQ(util::creation_failure("/no/such/dir", EACCES), "Permission denied");
}

}  // namespace atomic_output_test
}  // namespace covkit
