#include "live/proc_files.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <pthread.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <thread>

namespace covkit::live {
namespace {

// A forked child never outlives its test, whatever fails.
struct Reap {
  pid_t pid;
  ~Reap() {
    if (pid > 0) {
      kill(pid, SIGKILL);
      waitpid(pid, nullptr, 0);
    }
  }
};

TEST(ProcFiles, ARunningProcessStandsForItself) {
  EXPECT_TRUE(process_running(getpid()));
  EXPECT_EQ(live_thread(getpid()), getpid());
  EXPECT_FALSE(thread_exited(getpid(), getpid()));
}

// Polls `done` until it holds: a state of another process that /proc shows
// some time after the event that makes it (the bound only matters when it
// never comes, however loaded the machine).
template <typename Done>
bool eventually(Done done) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
  while (!done()) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return true;
}

// A child whose main thread ends (as with pthread_exit) while another thread
// runs on: /proc/PID is a zombie, the process is not.
TEST(ProcFiles, AProcessWhoseMainThreadEndedRunsOnInAnother) {
  int ready[2];
  ASSERT_EQ(pipe(ready), 0);
  pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    close(ready[0]);
    static int fd;
    fd = ready[1];
    pthread_t t;
    pthread_create(
        &t, nullptr,
        [](void*) -> void* {
          const pid_t tid = pid_t(syscall(SYS_gettid));
          if (write(fd, &tid, sizeof tid) != sizeof tid) _exit(2);
          for (;;) pause();
        },
        nullptr);
    // pthread_exit would unwind through gtest's frames (a forced unwind it
    // catches): the raw exit system call ends this thread alone, as
    // pthread_exit does in the end.
    syscall(SYS_exit, 0);
  }
  Reap reap{child};
  close(ready[1]);
  pid_t other = 0;
  ASSERT_EQ(read(ready[0], &other, sizeof other), ssize_t(sizeof other));
  close(ready[0]);
  // The main thread's end follows its exit call: wait for /proc to show it.
  EXPECT_TRUE(eventually([&] { return thread_exited(child, child); }));
  EXPECT_FALSE(thread_exited(child, other));
  EXPECT_TRUE(process_running(child));
  EXPECT_EQ(live_thread(child), other);
  kill(child, SIGKILL);
  ASSERT_EQ(waitpid(child, nullptr, 0), child);
  reap.pid = 0;
  EXPECT_FALSE(process_running(child));
  EXPECT_EQ(live_thread(child), std::nullopt);
}

// An exec keeps the start time, also from a thread other than the main one
// (which then takes the process's id): how a dump tells a process caught in
// an exec from one that exited. The command's name may hold ") ".
TEST(ProcFiles, AnExecKeepsTheStartTime) {
  const std::optional<uint64_t> ours = process_start_time(getpid());
  ASSERT_TRUE(ours);
  // `execd`'s write end is the child's alone and closed by its exec (or
  // its end): the exec is done, /proc/PID/exe the new program's, when the
  // read gets end of file (the kernel sets the new executable, then closes
  // the close-on-exec descriptors).
  int ready[2], go[2], execd[2];
  ASSERT_EQ(pipe(ready), 0);
  ASSERT_EQ(pipe(go), 0);
  ASSERT_EQ(pipe2(execd, O_CLOEXEC), 0);
  pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    prctl(PR_SET_NAME, "a) 1 2 (b");
    close(ready[0]);
    close(go[1]);
    close(execd[0]);
    char c = 0;
    if (write(ready[1], &c, 1) != 1 || read(go[0], &c, 1) != 1) _exit(2);
    pthread_t t;
    pthread_create(
        &t, nullptr,
        [](void*) -> void* {
          execl("/bin/sleep", "sleep", "60", static_cast<char*>(nullptr));
          _exit(3);
        },
        nullptr);
    for (;;) pause();
  }
  Reap reap{child};
  close(ready[1]);
  close(go[0]);
  close(execd[1]);
  char c = 0;
  ASSERT_EQ(read(ready[0], &c, 1), 1);
  const std::optional<uint64_t> before = process_start_time(child);
  ASSERT_TRUE(before);
  // Started after this process and by now (/proc/uptime, in clock ticks).
  auto uptime = read_proc_file("/proc/uptime");
  ASSERT_TRUE(uptime);
  EXPECT_GE(*before, *ours);
  EXPECT_LE(*before, uint64_t(std::strtod(uptime->c_str(), nullptr) * double(sysconf(_SC_CLK_TCK))) + 1);
  ASSERT_EQ(write(go[1], &c, 1), 1);
  ssize_t got;
  while ((got = read(execd[0], &c, 1)) < 0 && errno == EINTR) {
  }
  EXPECT_EQ(got, 0);
  close(execd[0]);
  ASSERT_TRUE(process_executable(child).ends_with("/sleep")) << process_executable(child);
  EXPECT_EQ(process_start_time(child), before);
  kill(child, SIGKILL);
  ASSERT_EQ(waitpid(child, nullptr, 0), child);
  reap.pid = 0;
  EXPECT_EQ(process_start_time(child), std::nullopt);
  close(ready[0]);
  close(go[1]);
}


// The fields of /proc/PID/status, by name at the start of a line: a name
// that ends another one (Uid in NSuid) or a missing value is no match.
TEST(ProcFiles, StatusFieldsAreReadByName) {
  const std::string status =
      "Name:\tx Uid: 7\nNSuid:\t9\nUid:\t1000\t1000\t1000\t1000\nTracerPid:\t0\nSigPnd:\t0000000000000010\n"
      "SigCgt:\t0000000180004202\nCapEff:\t000001ffffffffff\nSeccomp:\t\nEmpty:";
  EXPECT_EQ(status_number(status, "Uid"), 1000);
  EXPECT_EQ(status_number(status, "TracerPid"), 0);
  EXPECT_EQ(status_number(status, "Seccomp"), std::nullopt);
  EXPECT_EQ(status_number(status, "Empty"), std::nullopt);
  EXPECT_EQ(status_number(status, "Gid"), std::nullopt);
  EXPECT_EQ(status_mask(status, "CapEff"), 0x1ffffffffffull);
  EXPECT_TRUE(has_signal(*status_mask(status, "SigPnd"), SIGTRAP));
  EXPECT_FALSE(has_signal(*status_mask(status, "SigPnd"), SIGINT));
  EXPECT_TRUE(has_signal(*status_mask(status, "SigCgt"), SIGUSR1));
  EXPECT_FALSE(has_signal(*status_mask(status, "SigCgt"), SIGUSR2));
  EXPECT_FALSE(has_signal(~0ull, 0));
  // Ours: no tracer, and a mask for every signal field.
  auto own = read_proc_file("/proc/self/status");
  ASSERT_TRUE(own);
  EXPECT_EQ(status_number(*own, "Pid"), getpid());
  EXPECT_TRUE(status_mask(*own, "SigBlk").has_value());
}

}  // namespace
}  // namespace covkit::live
