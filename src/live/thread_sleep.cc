#include "live/thread_sleep.h"

#include <sys/syscall.h>
#include <unistd.h>

#include <cstdlib>
#include <string>

#include "live/proc_files.h"

namespace covkit::live {

namespace {

// The calls a ptrace stop makes return EINTR whatever the thread waits for
// (x86-64 numbers; see the header for how they were measured).
bool eintr_call(long nr) {
  switch (nr) {
#ifdef __x86_64__
    case SYS_epoll_wait:
    case SYS_epoll_pwait:
    case 441:  // epoll_pwait2
    case SYS_rt_sigtimedwait:
    case SYS_semop:
    case SYS_semtimedop:
    case SYS_io_getevents:
    case 333:  // io_pgetevents
      return true;
#endif
    default:
      return false;
  }
}

// Socket calls return EINTR when the socket has a timeout (SO_RCVTIMEO,
// SO_SNDTIMEO), which cannot be seen from outside: taken as such.
bool socket_call(long nr) {
  switch (nr) {
#ifdef __x86_64__
    case SYS_recvfrom:
    case SYS_recvmsg:
    case SYS_recvmmsg:
    case SYS_accept:
    case SYS_accept4:
    case SYS_connect:
    case SYS_sendto:
    case SYS_sendmsg:
    case SYS_sendmmsg:
      return true;
#endif
    default:
      return false;
  }
}

std::string task_file(pid_t pid, pid_t tid, const char* name) {
  return "/proc/" + std::to_string(pid) + "/task/" + std::to_string(tid) + "/" + name;
}

// read/readv of a socket: the first argument's file.
bool reads_socket(pid_t pid, long nr, unsigned long fd) {
#ifdef __x86_64__
  if (nr != SYS_read && nr != SYS_readv) return false;
#else
  (void)nr;
  return false;
#endif
  char link[64];
  std::string path = "/proc/" + std::to_string(pid) + "/fd/" + std::to_string(fd);
  ssize_t n = ::readlink(path.c_str(), link, sizeof link - 1);
  return n > 7 && std::string_view(link, size_t(n)).starts_with("socket:");
}

struct TaskNow {
  char state = '\0';
  long call = -2;  // -2: unknown or running
  unsigned long first_arg = 0;
  uint64_t switches = 0;
  bool ok = false;
};

TaskNow task_now(pid_t pid, pid_t tid) {
  TaskNow t;
  auto status = read_proc_file(task_file(pid, tid, "status"));
  if (!status) return t;
  auto vol = status_number(*status, "voluntary_ctxt_switches");
  auto invol = status_number(*status, "nonvoluntary_ctxt_switches");
  if (!vol || !invol) return t;
  t.switches = uint64_t(*vol) + uint64_t(*invol);
  auto stat = read_proc_file(task_file(pid, tid, "stat"));
  if (!stat) return t;
  size_t close = stat->rfind(')');
  if (close == std::string::npos || close + 2 >= stat->size()) return t;
  t.state = (*stat)[close + 2];
  auto syscall = read_proc_file(task_file(pid, tid, "syscall"));
  if (!syscall || syscall->empty() || (*syscall)[0] < '0' || (*syscall)[0] > '9') return t;  // "running", "-1 ..."
  char* end = nullptr;
  t.call = std::strtol(syscall->c_str(), &end, 10);
  t.first_arg = std::strtoul(end, nullptr, 16);
  t.ok = true;
  return t;
}

}  // namespace

std::optional<ThreadSleep> eintr_sleep(pid_t pid, pid_t tid) {
  TaskNow t = task_now(pid, tid);
  if (!t.ok || t.state != 'S') return std::nullopt;
  if (!eintr_call(t.call) && !socket_call(t.call) && !reads_socket(pid, t.call, t.first_arg)) return std::nullopt;
  return ThreadSleep{tid, t.call, t.switches};
}

bool still_asleep(pid_t pid, const ThreadSleep& before) {
  TaskNow t = task_now(pid, before.tid);
  return t.ok && t.state == 'S' && t.call == before.call && t.switches == before.switches;
}

}  // namespace covkit::live
