#include "sample/perf_recorder.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <random>

#include "format/sample_recording_writer.h"
#include "sample/elf_module_file.h"
#include "sample/perf_event_session.h"
#include "sample/perf_recording_builder.h"
#include "sample/sample_recording_dir.h"
#include "util/printable.h"

namespace covkit::sample {

namespace {

// How often the rings are read while the program runs, at the latest (a
// ring past a quarter full wakes covkit sooner).
constexpr int kReadEveryMs = 50;
// Ring warnings kept in the recording: the first few say what went wrong.
constexpr size_t kMaxRingWarnings = 5;

// Records stamped this close to a read may still be on their way into a
// ring: they wait for the next read.
constexpr uint64_t kSettleNs = 10'000'000;

uint64_t monotonic_ns() {
  timespec ts{};
  ::clock_gettime(CLOCK_MONOTONIC, &ts);
  return uint64_t(ts.tv_sec) * 1'000'000'000 + uint64_t(ts.tv_nsec);
}

uint64_t realtime_ns() {
  timespec ts{};
  ::clock_gettime(CLOCK_REALTIME, &ts);
  return uint64_t(ts.tv_sec) * 1'000'000'000 + uint64_t(ts.tv_nsec);
}

// As /proc/PID/exe names it (the runtime's images say that).
std::string absolute_path(const std::string& path) {
  char* real = ::realpath(path.c_str(), nullptr);
  if (!real) return path;
  std::string out(real);
  std::free(real);
  return out;
}

std::vector<char*> c_strings(std::vector<std::string>& strings) {
  std::vector<char*> out;
  for (std::string& s : strings) out.push_back(s.data());
  out.push_back(nullptr);
  return out;
}

// SIGINT and SIGQUIT are the program's while it runs (as system() does);
// covkit's own come back when the recording is written.
class IgnoreTerminalSignals {
 public:
  IgnoreTerminalSignals() {
    struct sigaction ignore {};
    ignore.sa_handler = SIG_IGN;
    sigemptyset(&ignore.sa_mask);
    ::sigaction(SIGINT, &ignore, &old_int_);
    ::sigaction(SIGQUIT, &ignore, &old_quit_);
  }
  ~IgnoreTerminalSignals() {
    ::sigaction(SIGINT, &old_int_, nullptr);
    ::sigaction(SIGQUIT, &old_quit_, nullptr);
  }
  IgnoreTerminalSignals(const IgnoreTerminalSignals&) = delete;
  IgnoreTerminalSignals& operator=(const IgnoreTerminalSignals&) = delete;

 private:
  struct sigaction old_int_ {}, old_quit_ {};
};

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

}  // namespace

Expected<RecordOutcome, RecordError> record_with_perf(const RecordRequest& r) {
  const bool branch = r.mode == SampleMode::branch;
  std::string command;
  for (const std::string& w : r.command) command += (command.empty() ? "" : " ") + w;
  auto dir = prepare_sample_dir(r.dir, command);
  if (!dir) return RecordError(fmt::format("{}: {}", util::printable(r.dir), dir.error().message), false);

  format::SampleRecording rec;
  rec.mode = std::string(mode_name(r.mode));
  rec.period_ns = r.period_ns ? r.period_ns : branch ? kDefaultPerfBranchPeriodNs : kDefaultPcPeriodNs;
  rec.command = r.command;
  rec.start_time = utc_now();
  rec.covkit_version = r.covkit_version;
  if (auto ok = format::write_recording_json(dir->path(), rec); !ok)
    return RecordError(fmt::format("{}: {}", util::printable(dir->path()), ok.error().message), false);

  std::vector<std::string> args = r.command, env = r.environment;
  std::vector<char*> argv = c_strings(args), envp = c_strings(env);
  IgnoreTerminalSignals terminal;
  auto launch = fork_waiting(r.program, argv, envp);
  if (!launch) return RecordError(fmt::format("{}: cannot run: {}", util::printable(r.program), launch.error().message), true);
  Launch child = *launch;

  PerfEventConfig config;
  config.kind = branch ? PerfEventKind::branch_stack : PerfEventKind::cpu_clock;
  config.period_ns = rec.period_ns;
  auto session = PerfEventSession::open(child.pid, config);
  if (!session) {
    close_fd(child.go);  // the child reads the end of the pipe and leaves
    close_fd(child.failed);
    wait_for(child.pid, 0);
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
    return RecordError(fmt::format("{}: cannot run: {}", util::printable(r.program), std::strerror(exec_errno)), true);
  }

  PerfRecordingBuilder builder(
      rec,
      [](const std::string& path) {
        auto file = read_elf_module(path);
        return file ? file->build_id : std::string();
      },
      int32_t(child.pid), absolute_path(r.program));
  std::mt19937_64 random(std::random_device{}());
  std::vector<format::PerfRecord> records, pending;
  std::vector<std::string> ring_warnings;
  size_t ring_warnings_total = 0;
  // Each CPU has its ring: a thread's sample on one CPU may be read before
  // its process's exec or fork on another. Records go to the builder in
  // time order, and those of the last moments wait for the next read (a
  // record is stamped a little before it lands in its ring).
  auto drain = [&](bool all) {
    const uint64_t horizon = monotonic_ns() - kSettleNs;
    session->read(records, ring_warnings);
    for (format::PerfRecord& r : records) pending.push_back(std::move(r));
    records.clear();
    std::stable_sort(pending.begin(), pending.end(), [](const format::PerfRecord& a, const format::PerfRecord& b) {
      return format::perf_record_time(a) < format::perf_record_time(b);
    });
    size_t ready = 0;
    while (ready < pending.size() && (all || format::perf_record_time(pending[ready]) <= horizon)) ++ready;
    const uint64_t now = realtime_ns();
    for (size_t i = 0; i < ready; ++i) builder.add(pending[i], now);
    pending.erase(pending.begin(), pending.begin() + ptrdiff_t(ready));
    for (std::string& w : ring_warnings)
      if (ring_warnings_total++ < kMaxRingWarnings) rec.warnings.push_back(std::move(w));
    ring_warnings.clear();
  };
  int status = -1;
  for (;;) {
    session->wait(kReadEveryMs);
    drain(false);
    session->shuffle_period(random);
    status = wait_for(child.pid, WNOHANG);
    if (status != -1) break;
  }
  drain(true);  // what the last moments wrote
  if (ring_warnings_total > kMaxRingWarnings)
    rec.warnings.push_back(fmt::format("{} more perf ring buffer warnings", ring_warnings_total - kMaxRingWarnings));
  builder.root_ended(WIFEXITED(status));
  builder.finish();
  for (format::SampleImage& image : rec.images)
    if (image.pid == int32_t(child.pid) && image.ppid == 0) image.ppid = int32_t(::getpid());

  if (auto ok = format::write_sample_recording(dir->path(), rec); !ok)
    return RecordError(fmt::format("{}: {}", util::printable(dir->path()), ok.error().message), false);

  trace::ProgramEnd end;
  if (WIFSIGNALED(status)) {
    end.signal = WTERMSIG(status);
    end.core_dumped = WCOREDUMP(status);
  } else {
    end.exit_status = WIFEXITED(status) ? WEXITSTATUS(status) : 1;
  }
  RecordOutcome out{end, true, dir->path(), dir->moved_to(), std::move(rec), ""};
  return out;
}

}  // namespace covkit::sample
