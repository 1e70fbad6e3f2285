#pragma once
// Reading /proc/PID/* files of a process that may exit at any moment. They
// report size 0, so they are read until the end; and a read that fails
// because the process died (ESRCH) is an error value, never an exception
// (std::ifstream throws from its buffer in that case).
#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "util/expected.h"

namespace covkit::live {

Expected<std::string> read_proc_file(const std::string& path);

// A field of a /proc/PID/status text, by its name without the colon
// ("TracerPid", "SigCgt"): its first number, decimal or (the masks and
// capability sets) hexadecimal; nullopt when the field is missing or holds
// no number.
std::optional<long long> status_number(std::string_view status, std::string_view name);
std::optional<uint64_t> status_mask(std::string_view status, std::string_view name);

// Whether signal `sig`'s bit is set in a SigCgt/SigIgn/SigPnd-style mask.
inline bool has_signal(uint64_t mask, int sig) { return sig >= 1 && sig <= 64 && (mask >> (sig - 1)) & 1; }

// Running, or at least not exited: a zombie (killed, not yet reaped by its
// parent) still has a /proc entry but no memory any more. A process whose
// main thread ended with pthread_exit runs on in its other threads.
bool process_running(pid_t pid);

// A thread that stands for the running process: PID itself, or, when the
// main thread ended with pthread_exit (its entry a zombie, its memory and
// maps gone from /proc/PID), another of its threads, whose /proc/TID files
// and memory are the process's. nullopt when the process has exited.
std::optional<pid_t> live_thread(pid_t pid);

// Whether a thread of the process has exited (a zombie, or gone).
bool thread_exited(pid_t pid, pid_t tid);

// The process tracing a thread (TracerPid), 0 when none or unknown.
pid_t thread_tracer(pid_t pid, pid_t tid);

// /proc/PID/NAME ("cmdline", "environ") of a process that may be inside an
// exec, whose new stack holds them only once the exec is done: read again
// while it is empty and the process runs, for `wait` at most. Empty for a
// process that ended, or holds none.
Expected<std::string> read_settled_proc_file(pid_t pid, std::string_view name, std::chrono::milliseconds wait);

// The words of /proc/PID/cmdline (empty when the process is gone).
std::vector<std::string> process_command_line(pid_t pid);

// The thread ids of /proc/PID/task, sorted; ESRCH (errno_value) when the
// process is gone.
Expected<std::vector<pid_t>> list_threads(pid_t pid);

// The parent field of /proc/PID/stat (nullopt when the process is gone).
std::optional<pid_t> parent_pid(pid_t pid);

// When the process started (the starttime field of /proc/PID/stat, in
// clock ticks since boot; nullopt when the process is gone). An exec keeps
// it, from any thread; another process given the pid later has its own.
std::optional<uint64_t> process_start_time(pid_t pid);

// The name of a kernel thread (kthreadd, kworker/0:1...): no user memory,
// no program, no coverage. nullopt for a process (or when it is gone).
std::optional<std::string> kernel_thread_name(pid_t pid);

// Where /proc/PID/exe points ("" when it cannot be read).
std::string process_executable(pid_t pid);

}  // namespace covkit::live
