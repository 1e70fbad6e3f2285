#include "util/file_io.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>

namespace file_io_test {

// A notes file may name any path as its source: devices never end and FIFOs
// block, so only regular files are read.
TEST(FileIo, DevicesAreNotRead) {
  auto data = covkit::util::read_file("/dev/zero");
  ASSERT_FALSE(data);
  EXPECT_EQ(data.error().message, "not a regular file");
}

TEST(FileIo, FifoDoesNotBlock) {
  std::string path = ::testing::TempDir() + "covkit_fifo_" + std::to_string(::getpid());
  ::unlink(path.c_str());
  ASSERT_EQ(::mkfifo(path.c_str(), 0600), 0);
  EXPECT_FALSE(covkit::util::read_file(path));
  ::unlink(path.c_str());
}

// What /proc says of a process: its state letter (stat) and the system call
// it sleeps in (its number first; "running" when it runs or may run at once).
struct ProcState {
  char state = '?';
  std::string syscall;
};

// The first line of a /proc file ("" when it cannot be read).
std::string proc_line(pid_t pid, const char* name) {
  std::string line;
  if (std::FILE* f = std::fopen(("/proc/" + std::to_string(pid) + "/" + name).c_str(), "r")) {
    char buf[1024] = {};
    if (std::fgets(buf, sizeof buf, f)) line = buf;
    std::fclose(f);
  }
  return line;
}

ProcState proc_state(pid_t pid) {
  ProcState s;
  const std::string stat = proc_line(pid, "stat");
  const size_t paren = stat.rfind(')');  // the command's name may hold one
  if (paren != std::string::npos && paren + 2 < stat.size()) s.state = stat[paren + 2];
  s.syscall = proc_line(pid, "syscall");
  return s;
}

// Where /proc/PID/syscall cannot be read (a kernel without it), the state
// alone.
bool asleep_in_open(const ProcState& s) {
  auto in = [&](long number) { return s.syscall.starts_with(std::to_string(number) + " "); };
#ifdef SYS_open
  if (in(SYS_open)) return s.state == 'S';
#endif
  return s.state == 'S' && (s.syscall.empty() || in(SYS_openat));
}

// A FIFO is not even opened (an open for reading would let a writer
// waiting in its open go on; a device's open runs its driver): a child
// waits to write to it while read_file and read_file_head look at it.
// The child is seen asleep in its open first, and still asleep there after:
// an open for reading wakes it (runnable, R) before that open returns.
TEST(FileIo, FifoIsNotOpened) {
  std::string path = ::testing::TempDir() + "covkit_fifo_unopened_" + std::to_string(::getpid());
  ::unlink(path.c_str());
  ASSERT_EQ(::mkfifo(path.c_str(), 0600), 0);
  const pid_t writer = ::fork();
  ASSERT_GE(writer, 0);
  if (writer == 0) ::_exit(::open(path.c_str(), O_WRONLY) >= 0 ? 0 : 1);  // waits for a reader
  // However slowly a loaded machine runs it (the bound: a writer that never gets there).
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
  ProcState before = proc_state(writer);
  while (!asleep_in_open(before) && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
    before = proc_state(writer);
  }
  EXPECT_TRUE(asleep_in_open(before)) << "the writer is not asleep in its open: " << before.state << " "
                                      << before.syscall;
  auto data = covkit::util::read_file(path);
  ASSERT_FALSE(data);
  EXPECT_EQ(data.error().message, "not a regular file");
  auto head = covkit::util::read_file_head(path, 16);
  ASSERT_FALSE(head);
  EXPECT_EQ(head.error().message, "not a regular file");
  const ProcState after = proc_state(writer);
  EXPECT_TRUE(asleep_in_open(after) && after.syscall == before.syscall)
      << "the FIFO was opened: its writer woke up (" << after.state << " " << after.syscall << ")";
  int status = 0;
  EXPECT_EQ(::waitpid(writer, &status, WNOHANG), 0) << "the FIFO was opened: its writer went on";
  const int release = ::open(path.c_str(), O_RDONLY | O_NONBLOCK);  // lets the writer end
  ASSERT_EQ(::waitpid(writer, &status, 0), writer);
  if (release >= 0) ::close(release);
  ::unlink(path.c_str());
}

TEST(FileIo, HeadOfARegularFileThroughALink) {
  std::string path = ::testing::TempDir() + "covkit_head_" + std::to_string(::getpid());
  ASSERT_TRUE(covkit::util::write_file_atomic(path, "abcdef"));
  const std::string link = path + ".link";
  ::unlink(link.c_str());
  ASSERT_EQ(::symlink(path.c_str(), link.c_str()), 0);
  auto head = covkit::util::read_file_head(link, 4);
  ASSERT_TRUE(head);
  EXPECT_EQ(*head, "abcd");
  head = covkit::util::read_file_head(path, 100);
  ASSERT_TRUE(head);
  EXPECT_EQ(*head, "abcdef");
  auto missing = covkit::util::read_file_head(path + ".missing", 4);
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().errno_value, ENOENT);
  ::unlink(link.c_str());
  ::unlink(path.c_str());
}

TEST(FileIo, RegularFileRoundTrip) {
  std::string path = ::testing::TempDir() + "covkit_file_" + std::to_string(::getpid());
  ASSERT_TRUE(covkit::util::write_file_atomic(path, "abc\n"));
  auto data = covkit::util::read_file(path);
  ASSERT_TRUE(data);
  EXPECT_EQ(data->text(), "abc\n");
  ::unlink(path.c_str());
}

std::string temp_path(const char* what) {
  return ::testing::TempDir() + "covkit_" + what + "_" + std::to_string(::getpid());
}

// Large files are mapped, not copied: same bytes either way.
// "-" is standard input, read to its end (a pipe here, as in `... | covkit
// live unpack -`); any other path is read_file's, devices refused alike.
TEST(FileIo, DashReadsStandardInputToItsEnd) {
  int pipe_fds[2];
  ASSERT_EQ(::pipe(pipe_fds), 0);
  std::string sent(100000, 'x');  // more than a pipe holds at once: written while it is read
  sent[12345] = 'y';
  const int saved = ::dup(STDIN_FILENO);
  ASSERT_GE(saved, 0);
  ASSERT_EQ(::dup2(pipe_fds[0], STDIN_FILENO), STDIN_FILENO);
  ::close(pipe_fds[0]);
  const pid_t writer = ::fork();
  ASSERT_GE(writer, 0);
  if (writer == 0) {
    const bool ok = ::write(pipe_fds[1], sent.data(), sent.size()) == ssize_t(sent.size());
    ::_exit(ok ? 0 : 1);
  }
  ::close(pipe_fds[1]);
  auto data = covkit::util::read_file_or_stdin("-");
  ::dup2(saved, STDIN_FILENO);
  ::close(saved);
  int status = 0;
  ::waitpid(writer, &status, 0);
  ASSERT_TRUE(data) << data.error().message;
  EXPECT_EQ(data->text(), sent);
  EXPECT_FALSE(covkit::util::read_file_or_stdin("/dev/zero"));
}

TEST(FileIo, LargeFileIsReadWhole) {
  const std::string path = temp_path("large");
  std::string content(3u << 20, '\0');
  for (size_t i = 0; i < content.size(); ++i) content[i] = char(i * 7 + i / 4096);
  ASSERT_TRUE(covkit::util::write_file_atomic(path, content));
  {
    auto data = covkit::util::read_file(path);
    ASSERT_TRUE(data);
    EXPECT_EQ(data->text(), content);
    covkit::util::FileData moved = std::move(*data);  // the mapping moves with it
    EXPECT_EQ(moved.text(), content);
  }
  ::unlink(path.c_str());
}

// A limit: a file larger by its size, or one that gives more than its size
// says while it is read (a /proc file says 0; a file that grows, a FUSE
// file with no end), is refused, said, and not read past the limit.
TEST(FileIo, LimitRefusesLargerFiles) {
  const std::string path = temp_path("limit");
  ASSERT_TRUE(covkit::util::write_file_atomic(path, std::string((2u << 20) + 1, 'x')));
  auto over = covkit::util::read_file(path, size_t(2) << 20);
  ASSERT_FALSE(over);
  EXPECT_NE(over.error().message.find("larger than 2 MiB"), std::string::npos) << over.error().message;
  auto within = covkit::util::read_file(path, (size_t(2) << 20) + 1);
  ASSERT_TRUE(within) << within.error().message;
  EXPECT_EQ(within->text().size(), (2u << 20) + 1);
  ::unlink(path.c_str());
  int fd = ::open("/proc/self/maps", O_RDONLY | O_CLOEXEC);  // size 0, more to read
  ASSERT_GE(fd, 0);
  auto endless = covkit::util::read_open_file(fd, "/proc/self/maps", 16);
  ::close(fd);
  EXPECT_FALSE(endless);
}

TEST(FileIo, MissingFileSaysWhy) {
  auto data = covkit::util::read_file(temp_path("absent"));
  ASSERT_FALSE(data);
  EXPECT_EQ(data.error().errno_value, ENOENT);
  EXPECT_EQ(data.error().message, "No such file or directory");
}

// A mapped file cut short under covkit (a program rewriting it) is one line
// naming the file and exit status 1, not a crash.
TEST(FileIoDeathTest, TruncatedWhileMappedIsOneLine) {
  const std::string path = temp_path("shrinks");
  ASSERT_TRUE(covkit::util::write_file_atomic(path, std::string(4u << 20, 'x')));
  EXPECT_EXIT(
      {
        auto data = covkit::util::read_file(path);
        if (!data) std::_Exit(3);
        if (::truncate(path.c_str(), 0) != 0) std::_Exit(4);
        volatile char c = data->text()[3u << 20];
        (void)c;
        std::_Exit(5);
      },
      ::testing::ExitedWithCode(1), "covkit: .*shrinks.*: the file shrank while covkit read it");
  ::unlink(path.c_str());
}

// A file someone else can change is copied, not mapped: cutting it short
// while covkit reads it must not end the run (a mapping's SIGBUS), and the
// bytes read stay those read. Group-writable here; another user's (as root).
TEST(FileIo, FileOthersCanChangeIsCopied) {
  const std::string path = temp_path("shared");
  const std::string content(4u << 20, 'x');
  auto cut_after_read = [&](mode_t mode, uid_t owner) {
    if (!covkit::util::write_file_atomic(path, content)) return std::string("not written");
    if (::chmod(path.c_str(), mode) != 0 || ::chown(path.c_str(), owner, gid_t(-1)) != 0)
      return std::string("chmod/chown failed");
    auto data = covkit::util::read_file(path);
    if (!data) return std::string("unread: ") + data.error().message;
    if (::truncate(path.c_str(), 0) != 0) return std::string("truncate failed");
    std::string seen(data->text());  // SIGBUS here if it were mapped
    return seen == content ? std::string("same") : std::string("changed");
  };
  EXPECT_EQ(cut_after_read(0664, ::geteuid()), "same");
  if (::geteuid() == 0) {
    EXPECT_EQ(cut_after_read(0644, 65534), "same");
  }
  ::unlink(path.c_str());
}

TEST(FileIo, WriteFailureSaysWhichStage) {
  auto w = covkit::util::write_file_atomic("/nonexistent-dir/x", "abc");
  ASSERT_FALSE(w);
  EXPECT_EQ(w.error().stage, covkit::util::WriteStage::kOpen);
  if (::access("/dev/full", W_OK) == 0) {
    auto full = covkit::util::write_file_atomic("/dev/full", "abc");
    ASSERT_FALSE(full);
    EXPECT_EQ(full.error().stage, covkit::util::WriteStage::kWrite);
  }
}

}  // namespace
