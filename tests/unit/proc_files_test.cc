#include "live/proc_files.h"

#include <gtest/gtest.h>
#include <pthread.h>
#include <signal.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <thread>

namespace covkit::live {
namespace {

TEST(ProcFiles, ARunningProcessStandsForItself) {
  EXPECT_TRUE(process_running(getpid()));
  EXPECT_EQ(live_thread(getpid()), getpid());
  EXPECT_FALSE(thread_exited(getpid(), getpid()));
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
  struct Reap {  // the child never outlives the test, whatever fails
    pid_t pid;
    ~Reap() {
      if (pid > 0) {
        kill(pid, SIGKILL);
        waitpid(pid, nullptr, 0);
      }
    }
  } reap{child};
  close(ready[1]);
  pid_t other = 0;
  ASSERT_EQ(read(ready[0], &other, sizeof other), ssize_t(sizeof other));
  close(ready[0]);
  // The main thread's end follows its pthread_exit call: wait for it.
  for (int i = 0; i < 2000 && !thread_exited(child, child); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  EXPECT_TRUE(thread_exited(child, child));
  EXPECT_FALSE(thread_exited(child, other));
  EXPECT_TRUE(process_running(child));
  EXPECT_EQ(live_thread(child), other);
  kill(child, SIGKILL);
  ASSERT_EQ(waitpid(child, nullptr, 0), child);
  reap.pid = 0;
  EXPECT_FALSE(process_running(child));
  EXPECT_EQ(live_thread(child), std::nullopt);
}

}  // namespace
}  // namespace covkit::live
