#include "sample/traced_launch.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <vector>

#include <fmt/format.h>

namespace covkit::sample {

namespace {

constexpr long kOptions = PTRACE_O_TRACEFORK | PTRACE_O_TRACEVFORK | PTRACE_O_TRACECLONE | PTRACE_O_TRACEEXEC |
                          PTRACE_O_EXITKILL;

void reap(pid_t pid) {
  ::kill(pid, SIGKILL);
  int status;
  while (::waitpid(pid, &status, __WALL) < 0 && errno == EINTR) {
  }
}

}  // namespace

Expected<pid_t> launch_traced(std::span<const std::string> argv) {
  if (argv.empty()) return Error("no program to run");
  const std::string& program = argv[0];
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);

  // The child reports a failed exec through this pipe; a successful exec
  // closes it (close-on-exec) before the exec stop, so the parent reads EOF.
  int pipe_fds[2];
  if (::pipe2(pipe_fds, O_CLOEXEC) != 0) return Error(fmt::format("{}: cannot start: {}", program, std::strerror(errno)));
  pid_t pid = ::fork();
  if (pid < 0) {
    int err = errno;
    ::close(pipe_fds[0]);
    ::close(pipe_fds[1]);
    return Error(fmt::format("{}: cannot start: {}", program, std::strerror(err)));
  }
  if (pid == 0) {
    // Only async-signal-safe calls from here on. The stop lets the parent
    // set its options before the exec, so the exec is reported as an event.
    ::close(pipe_fds[0]);
    ::signal(SIGINT, SIG_DFL);  // the recorder ignores them while the program runs
    ::signal(SIGQUIT, SIG_DFL);
    int err = 0;
    if (::ptrace(PTRACE_TRACEME, 0, nullptr, nullptr) != 0 || ::raise(SIGSTOP) != 0) {
      err = errno;
    } else {
      ::execvp(args[0], args.data());
      err = errno;
    }
    (void)!::write(pipe_fds[1], &err, sizeof err);
    ::_exit(127);
  }
  ::close(pipe_fds[1]);
  int status = 0;
  pid_t got;
  while ((got = ::waitpid(pid, &status, __WALL)) < 0 && errno == EINTR) {
  }
  std::string why;
  if (got != pid || !WIFSTOPPED(status) || WSTOPSIG(status) != SIGSTOP)
    why = "it did not stop for the tracer";
  else if (::ptrace(PTRACE_SETOPTIONS, pid, nullptr, reinterpret_cast<void*>(kOptions)) != 0 ||
           ::ptrace(PTRACE_CONT, pid, nullptr, nullptr) != 0)
    why = fmt::format("cannot trace it: {}", std::strerror(errno));
  int child_errno = 0;
  if (why.empty()) {
    ssize_t n;
    while ((n = ::read(pipe_fds[0], &child_errno, sizeof child_errno)) < 0 && errno == EINTR) {
    }
    if (n == ssize_t(sizeof child_errno)) why = std::strerror(child_errno);
  }
  ::close(pipe_fds[0]);
  if (!why.empty()) {
    reap(pid);
    Error e(fmt::format("{}: cannot run: {}", program, why));
    e.errno_value = child_errno;
    return e;
  }
  return pid;
}

}  // namespace covkit::sample
