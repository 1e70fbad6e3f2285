#include "sample/traced_launch.h"

#include <signal.h>
#include <sys/ptrace.h>
#include <sys/socket.h>
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

  // One socket pair, both ways: the parent sends a byte once it has seized
  // the child, which waits for it before its exec; the child reports a
  // failed exec back, and a successful exec closes its end (close-on-exec)
  // before the exec stop, so the parent reads EOF.
  int fds[2];
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) != 0)
    return Error(fmt::format("{}: cannot start: {}", program, std::strerror(errno)));
  pid_t pid = ::fork();
  if (pid < 0) {
    int err = errno;
    ::close(fds[0]);
    ::close(fds[1]);
    return Error(fmt::format("{}: cannot start: {}", program, std::strerror(err)));
  }
  if (pid == 0) {
    // Only async-signal-safe calls from here on. No byte (covkit gone, or
    // it could not trace): nothing is run untraced.
    ::close(fds[0]);
    ::signal(SIGINT, SIG_DFL);  // the recorder ignores them while the program runs
    ::signal(SIGQUIT, SIG_DFL);
    char go = 0;
    ssize_t n;
    while ((n = ::read(fds[1], &go, 1)) < 0 && errno == EINTR) {
    }
    if (n != 1) ::_exit(127);
    ::execvp(args[0], args.data());
    int err = errno;
    (void)!::write(fds[1], &err, sizeof err);
    ::_exit(127);
  }
  ::close(fds[1]);
  // Seized, not PTRACE_TRACEME'd: a stop signal (SIGSTOP, Ctrl-Z) then
  // leaves the program in a group-stop that the recorder can keep
  // (PTRACE_LISTEN) until SIGCONT, as for an attached process. The options
  // are set before the exec, so the exec is reported as an event.
  std::string why;
  const char go = 1;
  if (::ptrace(PTRACE_SEIZE, pid, nullptr, reinterpret_cast<void*>(kOptions)) != 0)
    why = fmt::format("cannot trace it: {}", std::strerror(errno));
  else if (::send(fds[0], &go, 1, MSG_NOSIGNAL) != 1)
    why = "it did not wait for the tracer";
  int child_errno = 0;
  if (why.empty()) {
    ssize_t n;
    while ((n = ::read(fds[0], &child_errno, sizeof child_errno)) < 0 && errno == EINTR) {
    }
    if (n == ssize_t(sizeof child_errno)) why = std::strerror(child_errno);
  }
  ::close(fds[0]);
  if (!why.empty()) {
    reap(pid);
    Error e(fmt::format("{}: cannot run: {}", program, why));
    e.errno_value = child_errno;
    return e;
  }
  return pid;
}

}  // namespace covkit::sample
