#include "sample/perf_recorder.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "format/sample_recording_writer.h"
#include "live/access_check.h"
#include "live/proc_files.h"
#include "sample/attach_signals.h"
#include "sample/elf_module_file.h"
#include "sample/perf_event_session.h"
#include "sample/perf_recording_builder.h"
#include "sample/perf_ring_reader.h"
#include "sample/running_process.h"
#include "sample/sample_recording_dir.h"
#include "trace/program_run.h"
#include "util/clock_ns.h"
#include "util/printable.h"

namespace covkit::sample {

namespace {

// As /proc/PID/exe names it (the runtime's images say that).
// The build-id of the file a mapping of a sampled process maps: read
// through /proc/PID/map_files (else the process's root and the path, else
// the path itself, as long as the device and inode are the mapping's),
// never of whatever the path names by then: the process's owner may point
// it at a binary only root may read. One that cannot be opened so gets no
// build-id and a warning in the recording.
PerfRecordingBuilder::BuildIdLookup mapped_build_id(format::SampleRecording& rec) {
  return [&rec](const format::PerfMmap& m) -> std::string {
    auto opened = open_mapped_module(pid_t(m.pid), m.start, m.start + m.length, m.major, m.minor, m.inode, m.path);
    if (!opened) {
      rec.warnings.push_back(opened.error().message);
      return {};
    }
    auto file = read_elf_module(*opened);
    return file ? file->build_id : std::string();
  };
}

std::string real_path_of(const std::string& path) {
  char* real = ::realpath(path.c_str(), nullptr);
  if (!real) return path;
  std::string out(real);
  std::free(real);
  return out;
}

void close_fd(int& fd) {
  if (fd >= 0) ::close(fd);
  fd = -1;
}

// The child's wait status, or -1 while it runs (WNOHANG). A child that
// cannot be waited for (it never was ours) reads as exit status 1.
int wait_for(pid_t pid, int flags) {
  int status = 0;
  pid_t got;
  while ((got = ::waitpid(pid, &status, flags)) < 0 && errno == EINTR) {
  }
  if (got < 0) return 1 << 8;
  return got == pid ? status : -1;
}

// A child that waits for a byte on `go` before it execs, so that the
// counters are on it first; an exec failure comes back on `failed`.
struct Launch {
  pid_t pid = -1;
  int go = -1, failed = -1;
};

Expected<Launch> fork_waiting(const std::string& program, std::vector<char*>& argv, std::vector<char*>& envp) {
  int go[2], failed[2];
  if (::pipe2(go, O_CLOEXEC) != 0) return Error(fmt::format("pipe: {}", std::strerror(errno)));
  if (::pipe2(failed, O_CLOEXEC) != 0) {
    const int err = errno;
    ::close(go[0]);
    ::close(go[1]);
    return Error(fmt::format("pipe: {}", std::strerror(err)));
  }
  const pid_t pid = ::fork();
  if (pid == 0) {  // only async-signal-safe calls from here on
    ::signal(SIGINT, SIG_DFL);
    ::signal(SIGQUIT, SIG_DFL);
    ::close(go[1]);
    ::close(failed[0]);
    char byte = 0;
    ssize_t n;
    while ((n = ::read(go[0], &byte, 1)) < 0 && errno == EINTR) {
    }
    if (n != 1) ::_exit(127);  // covkit gave up
    ::execve(program.c_str(), argv.data(), envp.data());
    const int err = errno;
    (void)!::write(failed[1], &err, sizeof err);
    ::_exit(127);
  }
  const int err = errno;
  ::close(go[0]);
  ::close(failed[1]);
  if (pid < 0) {
    ::close(go[1]);
    ::close(failed[0]);
    return Error(fmt::format("fork: {}", std::strerror(err)));
  }
  return Launch{pid, go[1], failed[0]};
}

PerfEventConfig config_for(const RecordRequest& r, const format::SampleRecording& rec) {
  PerfEventConfig config =
      perf_config_for(r.mode == SampleMode::branch ? PerfEventKind::branch_stack : PerfEventKind::cpu_clock);
  config.period_ns = rec.period_ns;
  config.ring_pages = r.ring_pages;
  config.enabled = r.attach_pid > 0;
  return config;
}

// Why perf_event_open refused to observe process `pid`, in one line. It
// checks what ptrace's read access checks (the kernel's
// perf_check_permission: the same user, or CAP_SYS_PTRACE) before
// kernel.perf_event_paranoid matters; a refusal for another user's process
// is that rule, whatever the paranoid level, and is said so.
std::string refusal_of_process(pid_t pid, const Error& e) {
  if (e.errno_value != EACCES && e.errno_value != EPERM) return e.message;
  const live::RefusalFacts facts = live::refusal_facts(pid, e);
  if (!facts.uid || *facts.uid == facts.euid) return e.message;  // the paranoid level, or a filter
  if (facts.euid != 0)
    return fmt::format("it belongs to user {}; the kernel lets perf_event_open observe only processes covkit could "
                       "trace (its own user's, or any as root with CAP_SYS_PTRACE), whatever "
                       "kernel.perf_event_paranoid says (perf_event_open: {})",
                       facts.user, std::strerror(e.errno_value));
  return live::explain_refusal(facts);
}

// The program started and sampled to its end.
Expected<RecordOutcome, RecordError> record_launched(const RecordRequest& r, format::SampleRecording& rec,
                                                     trace::RecordingDir& dir) {
  std::vector<std::string> args = r.command, env = r.environment;
  std::vector<char*> argv = trace::c_strings(args), envp = trace::c_strings(env);
  trace::TerminalSignalsToProgram terminal;
  auto launch = fork_waiting(r.program, argv, envp);
  if (!launch) {
    (void)dir.discard();  // best effort; a record that never began leaves nothing behind
    return RecordError(fmt::format("{}: cannot run: {}", util::printable(r.program), launch.error().message), true);
  }
  Launch child = *launch;
  terminal.forward_to(child.pid);

  auto session = PerfEventSession::open({child.pid}, config_for(r, rec));
  if (!session) {
    close_fd(child.go);  // the child reads the end of the pipe and leaves
    close_fd(child.failed);
    wait_for(child.pid, 0);
    (void)dir.discard();  // best effort: the refusal is what the user must read
    return RecordError(session.error().message, false);
  }
  const char byte = 1;
  (void)!::write(child.go, &byte, 1);
  close_fd(child.go);
  int exec_errno = 0;
  ssize_t n;
  while ((n = ::read(child.failed, &exec_errno, sizeof exec_errno)) < 0 && errno == EINTR) {
  }
  close_fd(child.failed);
  if (n == ssize_t(sizeof exec_errno)) {
    wait_for(child.pid, 0);
    (void)dir.discard();  // best effort: the refusal is what the user must read
    return RecordError(fmt::format("{}: cannot run: {}", util::printable(r.program), std::strerror(exec_errno)), true);
  }

  PerfRecordingBuilder builder(rec, mapped_build_id(rec), int32_t(child.pid), real_path_of(r.program));
  PerfRingReader reader(*session, builder, rec);
  int status = -1;
  while ((status = wait_for(child.pid, WNOHANG)) == -1) reader.step();
  reader.finish();  // what the last moments wrote
  builder.root_ended(WIFEXITED(status));
  builder.finish();
  for (format::SampleImage& image : rec.images)
    if (image.pid == int32_t(child.pid) && image.ppid == 0) image.ppid = int32_t(::getpid());

  if (auto ok = format::write_sample_recording(dir.path(), rec); !ok)
    return RecordError(fmt::format("{}: {}", util::printable(dir.path()), ok.error().message), false);
  trace::ProgramEnd end;
  if (WIFSIGNALED(status)) {
    end.signal = WTERMSIG(status);
    end.core_dumped = WCOREDUMP(status);
  } else {
    end.exit_status = WIFEXITED(status) ? WEXITSTATUS(status) : 1;
  }
  return RecordOutcome{end, true, dir.path(), dir.moved_to(), std::move(rec), ""};
}

// Why a process named by --pid cannot be sampled: a zombie (ended, not yet
// reaped by its parent) still answers kill(pid, 0) but has no threads left.
std::string gone_process(pid_t pid) {
  if (::kill(pid, 0) == 0 || errno == EPERM) return fmt::format("process {} has already ended", pid);
  return fmt::format("process {} does not exist", pid);
}

// A running process sampled for a while: its threads now (and, inherited,
// those they start), its mappings read from /proc first.
Expected<RecordOutcome, RecordError> record_attached(const RecordRequest& r, format::SampleRecording& rec,
                                                     trace::RecordingDir& dir) {
  const pid_t pid = r.attach_pid;
  AttachSignals signals;  // no tick: the rings' wait times out every 50 ms
  auto listed = live::list_threads(pid);
  if (!listed || listed->empty()) {
    (void)dir.discard();  // best effort: the refusal is what the user must read
    return RecordError(gone_process(pid), false);
  }
  const std::vector<pid_t>& tasks = *listed;
  const int32_t ppid = live::parent_pid(pid).value_or(0);  // while it runs
  auto session = PerfEventSession::open(tasks, config_for(r, rec));
  if (!session) {
    (void)dir.discard();  // best effort; a refused record leaves nothing behind
    return RecordError(fmt::format("process {}: {}", pid, refusal_of_process(pid, session.error())), false);
  }
  PerfRecordingBuilder builder(rec, mapped_build_id(rec), int32_t(pid), live::process_executable(pid));
  const uint64_t now = util::clock_ns(CLOCK_REALTIME);
  for (const format::PerfMmap& m : mappings_of(pid)) builder.add(m, now);
  if (r.on_attached) r.on_attached(tasks.size(), 0);
  PerfRingReader reader(*session, builder, rec);
  const uint64_t until = r.attach_seconds < 0 ? UINT64_MAX : util::clock_ns(CLOCK_MONOTONIC) + uint64_t(r.attach_seconds * 1e9);
  bool ended = false;
  while (!signals.stop_requested() && util::clock_ns(CLOCK_MONOTONIC) < until) {
    reader.step();
    if (!live::process_running(pid)) {
      ended = true;
      break;
    }
  }
  reader.finish();
  builder.finish();
  for (format::SampleImage& image : rec.images)
    if (image.pid == int32_t(pid) && image.ppid == 0) image.ppid = ppid;
  if (auto ok = format::write_sample_recording(dir.path(), rec); !ok)
    return RecordError(fmt::format("{}: {}", util::printable(dir.path()), ok.error().message), false);
  RecordOutcome out{trace::ProgramEnd{}, ended, dir.path(), dir.moved_to(), std::move(rec), ""};
  out.end_known = !ended;
  return out;
}

}  // namespace

uint64_t perf_period_ns(const RecordRequest& r) {
  if (r.period_ns) return r.period_ns;
  return r.mode == SampleMode::branch ? kDefaultPerfBranchPeriodNs : kDefaultPcPeriodNs;
}

namespace {

// The command line of a process to attach to. A process in the middle of
// an exec has none for a moment (its new stack is not set up yet), and one
// that ended has none for good: the first is waited for (~2 s at most: an
// exec on a loaded machine), the second refused.
Expected<std::vector<std::string>, RecordError> attach_command(pid_t pid) {
  (void)live::read_settled_proc_file(pid, "cmdline", std::chrono::seconds(2));
  std::vector<std::string> command = live::process_command_line(pid);
  if (!command.empty()) return command;
  if (live::process_running(pid)) return std::vector<std::string>{fmt::format("[process {}]", pid)};
  return RecordError(gone_process(pid), false);
}

}  // namespace

Expected<RecordOutcome, RecordError> record_with_perf(const RecordRequest& r) {
  std::vector<std::string> command = r.command;
  if (r.attach_pid > 0) {
    auto attached = attach_command(r.attach_pid);
    if (!attached) return attached.error();
    command = std::move(*attached);
  }
  std::string joined;
  for (const std::string& w : command) joined += (joined.empty() ? "" : " ") + w;
  auto dir = prepare_sample_dir(r.dir, joined);
  if (!dir) return RecordError(fmt::format("{}: {}", util::printable(r.dir), dir.error().message), false);

  format::SampleRecording rec;
  rec.mode = std::string(mode_name(r.mode));
  rec.period_ns = perf_period_ns(r);
  rec.command = command;
  rec.start_time = utc_now();
  rec.covkit_version = r.covkit_version;
  if (auto ok = format::write_recording_json(dir->path(), rec); !ok)
    return RecordError(fmt::format("{}: {}", util::printable(dir->path()), ok.error().message), false);
  return r.attach_pid > 0 ? record_attached(r, rec, *dir) : record_launched(r, rec, *dir);
}

}  // namespace covkit::sample
