#pragma once
// Threads that a stop would disturb. Stopping a thread with ptrace (as a
// debugger does) wakes it from a blocking system call; most calls then
// restart unseen when it goes on, but a few return EINTR to the program,
// as after SIGSTOP and SIGCONT (signal(7)): measured on Linux 6.1-6.18 by
// tests/live (scenario blocking_calls): epoll_wait, epoll_pwait,
// epoll_pwait2, sigtimedwait, sigwaitinfo, semop, semtimedop, io_getevents,
// and receiving from (or accepting on) a socket with SO_RCVTIMEO. A server
// idling in epoll_wait then runs its EINTR branch, and its coverage changes
// because it was looked at. `covkit live dump --gentle` leaves such threads
// running (they are asleep in the kernel, so they cannot count) and checks
// afterwards that they stayed asleep: the same call, not switched in since.
#include <sys/types.h>

#include <cstdint>
#include <optional>

namespace covkit::live {

struct ThreadSleep {
  pid_t tid = 0;
  long call = -1;          // the system call it sleeps in
  uint64_t switches = 0;   // voluntary + involuntary context switches so far
};

// The thread, when it sleeps (state S) in a call that a stop would make
// return EINTR; nullopt otherwise (running, or in a call that restarts).
std::optional<ThreadSleep> eintr_sleep(pid_t pid, pid_t tid);

// Whether the thread still sleeps in the same call and has not run since
// `before` was taken.
bool still_asleep(pid_t pid, const ThreadSleep& before);

}  // namespace covkit::live
