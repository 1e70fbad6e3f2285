#include "sample/breakpoint_recorder.h"

#include <signal.h>
#include <sys/ptrace.h>
#include <sys/time.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <tuple>
#include <unordered_map>

#include <fmt/format.h>

#include "live/proc_files.h"
#include "live/process_stop.h"
#include "live/process_maps.h"
#include "sample/address_space.h"
#include "sample/attach_signals.h"
#include "sample/dynamic_linker_hook.h"
#include "sample/elf_module_file.h"
#include "sample/traced_launch.h"

namespace covkit::sample {

namespace {

// Followed from the attach on, as for a launched program, but without
// PTRACE_O_EXITKILL: the process is not covkit's to kill.
constexpr long kAttachOptions = PTRACE_O_TRACEFORK | PTRACE_O_TRACEVFORK | PTRACE_O_TRACECLONE | PTRACE_O_TRACEEXEC;

// What one module's file gives, read once per run (many processes map it):
// by its path, device and inode (another file at the same path is another module).
struct ModuleData {
  std::optional<ElfModuleFile> file;  // nullopt when it could not be read
  std::vector<uint64_t> vaddrs;       // the provider's answer
};

struct Thread {
  std::shared_ptr<AddressSpace> space;  // null until the first exec
};

// Whether SIGTRAP's bit is set in a signal mask of the thread's status
// ("SigCgt": the process catches it; "SigPnd": pending for the thread).
bool sigtrap_in(pid_t tid, std::string_view field) {
  auto status = live::read_proc_file(fmt::format("/proc/{}/task/{}/status", tid, tid));
  return status && live::has_signal(live::status_mask(*status, field).value_or(0), SIGTRAP);
}
bool catches_sigtrap(pid_t tid) { return sigtrap_in(tid, "SigCgt"); }

bool is_exec_file(const live::Mapping& m) {
  return m.executable && !m.path.empty() && m.path[0] == '/' && !m.path.ends_with(" (deleted)");
}

class Recorder {
 public:
  Recorder(const BreakpointProvider& provider, const BreakpointOptions& options)
      : provider_(provider), options_(options) {
    recording_.mode = "breakpoint";
  }
  ~Recorder() {
    // Only after an error: nothing traced may outlive the recorder.
    for (auto& [tid, t] : threads_) ::kill(tid, SIGKILL);
    int status;
    while (!threads_.empty() && (::waitpid(-1, &status, __WALL) >= 0 || errno == EINTR)) {
    }
  }

  // Launched: `root` is about to report its exec.
  format::SampleRecording run(pid_t root, trace::ProgramEnd* end) {
    threads_[root] = Thread{};
    return loop(root, end, nullptr);
  }
  // Attached: `tids`, every thread of `pid`, seized and stopped; followed
  // until `stop` says so (or the process ends), then detached, the text
  // as it was.
  // `job_stopped`: the process was stopped by a signal when seized (it
  // stays so: see keep_stopped).
  format::SampleRecording attach(pid_t pid, const std::vector<pid_t>& tids, bool job_stopped, trace::ProgramEnd* end,
                                 const std::function<bool()>& stop,
                                 const std::function<void(size_t, size_t)>& attached);
  bool root_ended() const { return root_ended_; }

 private:
  format::SampleRecording loop(pid_t root, trace::ProgramEnd* end, const std::function<bool()>* stop);
  std::shared_ptr<AddressSpace> start_image(pid_t tid);
  void detach_all();
  void on_exec(pid_t tid);
  void plant_linker_hook(pid_t tid, AddressSpace& space);
  void on_new_task(pid_t parent, pid_t child, int event);
  bool on_trap(pid_t tid);
  void scan_modules(pid_t tid, AddressSpace& space);
  const ModuleData& module_data(pid_t tid, const live::Mapping& mapping);
  void add_mappings(uint32_t image, const std::string& path, const std::vector<format::SampleMapping>& maps);
  // Once per image: a forked child that maps a library its parent maps
  // too plants the same addresses in its own copy.
  void add_planted(uint32_t image, uint64_t address) {
    if (planted_.insert({image, address}).second) recording_.planted.push_back({image, address});
  }
  void warn(std::string message) { recording_.warnings.push_back(std::move(message)); }
  void resume(pid_t tid, int sig) { ::ptrace(PTRACE_CONT, tid, nullptr, reinterpret_cast<void*>(intptr_t(sig))); }
  // A thread in a group-stop (the process stopped by SIGSTOP, SIGTSTP...):
  // PTRACE_CONT would end the stop the program's user asked for. Every
  // thread is seized (launched or attached), so it listens instead: it
  // stays stopped, and its SIGCONT is reported (an event stop, then resumed).
  void keep_stopped(pid_t tid) {
    if (::ptrace(PTRACE_LISTEN, tid, nullptr, nullptr) != 0) resume(tid, 0);
  }

  const BreakpointProvider& provider_;
  const BreakpointOptions& options_;
  format::SampleRecording recording_;
  std::unordered_map<pid_t, Thread> threads_;
  std::set<pid_t> early_stops_;  // new tasks that stopped before their parent's event told of them
  std::map<std::tuple<std::string, uint32_t, uint32_t, uint64_t>, ModuleData> modules_;
  std::set<std::pair<uint32_t, uint64_t>> hit_, planted_;
  bool root_ended_ = false;
  bool detaching_ = false;  // new tasks stay stopped
};

// The module is read from the file the process maps (through
// /proc/TID/map_files, checked against the mapping's device and inode),
// never by its path: the process's owner may have pointed that at a binary
// only root may read since covkit read the maps. One that cannot be opened
// so is left out, said in a warning.
const ModuleData& Recorder::module_data(pid_t tid, const live::Mapping& mapping) {
  const std::string& path = mapping.path;
  auto [it, inserted] = modules_.try_emplace(std::make_tuple(path, mapping.dev_major, mapping.dev_minor, mapping.inode));
  if (!inserted) return it->second;
  ModuleData& d = it->second;
  auto opened = open_mapped_module(tid, mapping);
  if (!opened) {
    warn(opened.error().message);
    return d;
  }
  auto file = read_elf_module(*opened);
  if (!file) {
    warn(file.error().message);
    return d;
  }
  d.file = std::move(*file);
  auto vaddrs = provider_(ModuleIdentity{path, d.file->build_id, opened->file()});
  if (!vaddrs)
    warn(fmt::format("{}: no breakpoints planted: {}", path, named_for(vaddrs.error(), *opened).message));
  else
    d.vaddrs = std::move(*vaddrs);
  return d;
}

void Recorder::add_mappings(uint32_t image, const std::string& path,
                            const std::vector<format::SampleMapping>& maps) {
  auto& list = recording_.images[image].mappings;
  for (const format::SampleMapping& m : maps) {
    bool known = std::any_of(list.begin(), list.end(), [&](const format::SampleMapping& k) {
      return k.start == m.start && k.end == m.end && k.path == path;
    });
    if (!known) list.push_back(m);
  }
  std::sort(list.begin(), list.end(), [](const auto& a, const auto& b) { return a.start < b.start; });
}

// Plants the plan of every module mapped executable since the last look,
// and forgets the modules that are gone (dlclose), whose addresses a later
// module may reuse.
void Recorder::scan_modules(pid_t tid, AddressSpace& space) {
  auto maps = live::read_maps(tid);
  if (!maps) {
    warn(fmt::format("process {}: {}", tid, maps.error().message));
    return;
  }
  std::map<std::string, std::vector<format::SampleMapping>> now;
  std::map<std::string, const live::Mapping*> first;  // the mapping the module's file is opened through
  for (const live::Mapping& m : *maps)
    if (is_exec_file(m)) {
      now[m.path].push_back({m.start, m.end, m.offset, m.path, ""});
      first.try_emplace(m.path, &m);
    }
  for (auto it = space.modules.begin(); it != space.modules.end();) {
    auto cur = now.find(it->first);
    if (cur != now.end() && cur->second.front().start == it->second.front().start) {
      ++it;
      continue;
    }
    for (const format::SampleMapping& m : it->second) space.table().forget(m.start, m.end);
    it = space.modules.erase(it);
  }
  for (auto& [path, mapped] : now) {
    if (space.modules.count(path)) continue;
    const ModuleData& data = module_data(tid, *first.at(path));
    for (format::SampleMapping& m : mapped) m.build_id = data.file ? data.file->build_id : "";
    add_mappings(space.image(), path, mapped);
    space.modules[path] = mapped;
    if (!data.file || data.vaddrs.empty()) continue;
    std::vector<uint64_t> sites;
    size_t outside = 0;
    for (uint64_t v : data.vaddrs) {
      std::optional<uint64_t> at = file_to_runtime(v, data.file->loads, mapped);
      if (!at) {
        ++outside;
        continue;
      }
      // The linker's hook is planted already: now the plan's site too.
      PlantedSite* hook = space.table().find(*at);
      if (hook && hook->persistent && !hook->planned) {
        hook->planned = true;
        add_planted(space.image(), *at);
      }
      sites.push_back(*at);
    }
    if (outside) warn(fmt::format("{}: {} planned addresses are in no executable mapping", path, outside));
    auto planted = space.plant(tid, sites, true, false);
    if (!planted) {
      warn(fmt::format("{}: {}", path, planted.error().message));
      continue;
    }
    for (uint64_t a : *planted) add_planted(space.image(), a);
  }
}

void Recorder::on_exec(pid_t tid) {
  unsigned long former = 0;
  ::ptrace(PTRACE_GETEVENTMSG, tid, nullptr, &former);
  // A thread other than the leader exec'd: it has taken the leader's id.
  if (pid_t(former) != tid) threads_.erase(pid_t(former));
  auto space = start_image(tid);
  threads_[tid] = Thread{space};

  // The linker's hook first: its code is read to check its shape before
  // the plan may patch an int3 over it (the plan's own site there is then
  // marked in scan_modules).
  if (options_.libraries) plant_linker_hook(tid, *space);
  scan_modules(tid, *space);
}

std::shared_ptr<AddressSpace> Recorder::start_image(pid_t tid) {
  format::SampleImage image;
  image.id = uint32_t(recording_.images.size());
  image.pid = tid;
  image.executable = live::process_executable(tid);
  recording_.images.push_back(std::move(image));
  return std::make_shared<AddressSpace>(tid, recording_.images.back().id);
}

format::SampleRecording Recorder::attach(pid_t pid, const std::vector<pid_t>& tids, bool job_stopped,
                                         trace::ProgramEnd* end, const std::function<bool()>& stop,
                                         const std::function<void(size_t, size_t)>& attached) {
  auto space = start_image(pid);
  for (pid_t tid : tids) threads_[tid] = Thread{space};
  if (options_.libraries) plant_linker_hook(pid, *space);
  scan_modules(pid, *space);
  if (attached) attached(tids.size(), recording_.planted.size());
  for (pid_t tid : tids) job_stopped ? keep_stopped(tid) : resume(tid, 0);
  return loop(pid, end, &stop);
}

// Stops every traced thread, takes each hit still on its way (an int3 whose
// SIGTRAP is pending, which would kill the process once detached), puts back
// every byte an int3 replaced, and detaches, handing each thread back the
// signal it was stopped with, if any.
void Recorder::detach_all() {
  detaching_ = true;
  std::set<pid_t> pending;
  std::map<pid_t, int> give_back;
  for (auto& [tid, t] : threads_)
    if (::ptrace(PTRACE_INTERRUPT, tid, nullptr, nullptr) == 0) pending.insert(tid);
  auto take_stop = [&](pid_t tid, int status) {
    if (WIFEXITED(status) || WIFSIGNALED(status)) {
      threads_.erase(tid);
      pending.erase(tid);
      return;
    }
    if (!WIFSTOPPED(status)) return;
    int sig = WSTOPSIG(status), event = status >> 16;
    if (!threads_.count(tid)) {  // a new task before its parent's event
      early_stops_.insert(tid);
      return;
    }
    if (sig == SIGTRAP && event == PTRACE_EVENT_EXEC) {
      on_exec(tid);
    } else if (sig == SIGTRAP && (event == PTRACE_EVENT_FORK || event == PTRACE_EVENT_VFORK ||
                                  event == PTRACE_EVENT_CLONE)) {
      unsigned long child = 0;
      if (::ptrace(PTRACE_GETEVENTMSG, tid, nullptr, &child) == 0) {
        bool stopped_already = early_stops_.count(pid_t(child)) > 0;
        on_new_task(tid, pid_t(child), event);
        if (!stopped_already) pending.insert(pid_t(child));
      }
    } else if (event == 0 && !(sig == SIGTRAP && on_trap(tid))) {
      give_back[tid] = sig;
    }
    pending.erase(tid);
  };
  while (!pending.empty()) {
    int status = 0;
    pid_t tid = ::waitpid(-1, &status, __WALL);
    if (tid < 0 && errno == EINTR) continue;
    if (tid < 0) break;
    take_stop(tid, status);
  }
  // The interrupt stop comes before a signal already queued: an int3 that
  // fired just then still has its SIGTRAP pending. Let it arrive and take it.
  for (auto it = threads_.begin(); it != threads_.end();) {
    pid_t tid = it->first;
    ++it;
    if (give_back.count(tid) || !sigtrap_in(tid, "SigPnd")) continue;
    if (::ptrace(PTRACE_CONT, tid, nullptr, nullptr) != 0) continue;
    int status = 0;
    while (::waitpid(tid, &status, __WALL) < 0 && errno == EINTR) {
    }
    take_stop(tid, status);
  }
  std::set<AddressSpace*> restored;
  for (auto& [tid, t] : threads_) {
    if (!t.space || !restored.insert(t.space.get()).second) continue;
    if (auto r = t.space->restore_all(tid); !r)
      warn(fmt::format("process {}: int3s left in its text: {}", tid, r.error().message));
  }
  for (auto& [tid, t] : threads_) {
    auto sig = give_back.find(tid);
    ::ptrace(PTRACE_DETACH, tid, nullptr, reinterpret_cast<void*>(intptr_t(sig == give_back.end() ? 0 : sig->second)));
  }
  threads_.clear();
}

void Recorder::plant_linker_hook(pid_t tid, AddressSpace& space) {
  auto maps = live::read_maps(tid);
  if (!maps) return;
  auto hook = find_r_brk(tid, *maps);
  if (!hook) {
    warn(hook.error().message);
    return;
  }
  if (!*hook) return;  // static: the executable is all there is
  space.r_brk = **hook;
  if (auto r = space.plant(tid, std::span(&space.r_brk, 1), false, true); !r) {
    warn(fmt::format("process {}: libraries not followed: {}", tid, r.error().message));
    space.r_brk = 0;
  }
}

void Recorder::on_new_task(pid_t parent, pid_t child, int event) {
  auto it = threads_.find(parent);
  std::shared_ptr<AddressSpace> space = it == threads_.end() ? nullptr : it->second.space;
  // A fork copies the text, int3s and all; threads and a vfork child
  // (until it execs) share the parent's.
  if (space && event == PTRACE_EVENT_FORK) space = std::shared_ptr<AddressSpace>(space->fork_copy(child));
  bool stopped = early_stops_.erase(child) > 0;
  threads_[child] = Thread{space};
  if (stopped && !detaching_) resume(child, 0);
}

// A SIGTRAP: true when it was one of ours (and the thread is ready to go on).
bool Recorder::on_trap(pid_t tid) {
  Thread& t = threads_[tid];
  if (!t.space) return false;
  siginfo_t info{};
  if (::ptrace(PTRACE_GETSIGINFO, tid, nullptr, &info) != 0 || info.si_code != SI_KERNEL) return false;
  user_regs_struct regs{};
  if (::ptrace(PTRACE_GETREGS, tid, nullptr, &regs) != 0) return false;
  uint64_t at = regs.rip - 1;
  AddressSpace& space = *t.space;
  PlantedSite* site = space.table().find(at);
  if (!site) return false;  // the program's own int3
  if (space.watch_sigtrap && !catches_sigtrap(tid)) {
    // The int3 fired while the thread blocked SIGTRAP (in the program's
    // handler): the kernel has already put SIGTRAP back to its default.
    space.watch_sigtrap = false;
    warn(fmt::format("process {}: a breakpoint at 0x{:x} fired inside the program's SIGTRAP handler; the "
                     "kernel reset its SIGTRAP handler to the default",
                     tid, at));
  }
  if (site->planned && hit_.insert({space.image(), at}).second) recording_.hits.push_back({space.image(), at});
  if (site->persistent) {
    // The linker's list changed: plant in what it mapped, then return from
    // _dl_debug_state for it (it is a bare return; see dynamic_linker_hook.h).
    scan_modules(tid, space);
    errno = 0;
    long ret = ::ptrace(PTRACE_PEEKDATA, tid, reinterpret_cast<void*>(regs.rsp), nullptr);
    if (errno != 0) return false;
    regs.rip = uint64_t(ret);
    regs.rsp += 8;
    return ::ptrace(PTRACE_SETREGS, tid, nullptr, &regs) == 0;
  }
  // Restored now, or by another thread that hit it at the same time: either
  // way the original instruction is back under the rewound RIP.
  if (auto r = space.restore(tid, at); !r) warn(r.error().message);
  return ::ptrace(PTRACE_POKEUSER, tid, reinterpret_cast<void*>(offsetof(user_regs_struct, rip)),
                  reinterpret_cast<void*>(at)) == 0;
}

format::SampleRecording Recorder::loop(pid_t root, trace::ProgramEnd* end, const std::function<bool()>* stop) {
  trace::ProgramEnd root_end;
  while (!threads_.empty()) {
    if (stop && (*stop)()) {
      detach_all();
      break;
    }
    int status = 0;
    pid_t tid = ::waitpid(-1, &status, __WALL);
    if (tid < 0) {
      if (errno == EINTR) continue;
      break;  // ECHILD: nothing traced is left
    }
    if (WIFEXITED(status) || WIFSIGNALED(status)) {
      if (tid == root) {
        root_ended_ = true;
        root_end = {};
        if (WIFEXITED(status)) root_end.exit_status = WEXITSTATUS(status);
        else root_end.signal = WTERMSIG(status), root_end.core_dumped = WCOREDUMP(status);
      }
      threads_.erase(tid);
      continue;
    }
    if (!WIFSTOPPED(status)) continue;
    int sig = WSTOPSIG(status), event = status >> 16;
    auto it = threads_.find(tid);
    if (it == threads_.end()) {
      early_stops_.insert(tid);  // resumed when its parent's event comes
      continue;
    }
    if (event == PTRACE_EVENT_STOP && sig != SIGTRAP) {
      // A group-stop (SIGSTOP, SIGTSTP...): the stop signal's effect, which
      // a seized thread reports as an event stop. It stays stopped.
      keep_stopped(tid);
      continue;
    }
    if (sig == SIGTRAP && event != 0) {
      if (event == PTRACE_EVENT_EXEC) {
        on_exec(tid);
      } else if (event == PTRACE_EVENT_FORK || event == PTRACE_EVENT_VFORK || event == PTRACE_EVENT_CLONE) {
        unsigned long child = 0;
        if (::ptrace(PTRACE_GETEVENTMSG, tid, nullptr, &child) == 0) on_new_task(tid, pid_t(child), event);
      }
      resume(tid, 0);
      continue;
    }
    if (sig == SIGTRAP && on_trap(tid)) {
      resume(tid, 0);
      continue;
    }
    if (sig == SIGTRAP && it->second.space && catches_sigtrap(tid)) it->second.space->watch_sigtrap = true;
    resume(tid, sig);  // the program's own signal, unchanged
  }
  threads_.clear();
  if (end) *end = root_end;
  return std::move(recording_);
}

}  // namespace

Expected<format::SampleRecording> record_breakpoints(std::span<const std::string> argv,
                                                      const BreakpointProvider& provider,
                                                      const BreakpointOptions& options, trace::ProgramEnd* end) {
  // As system() does: ^C and ^\ are the program's to handle while it runs
  // (it gets the default dispositions back), and covkit keeps what it saw.
  trace::TerminalSignalsToProgram terminal;
  auto root = launch_traced(argv);
  if (!root) return root.error();
  terminal.forward_to(*root);
  Recorder recorder(provider, options);
  format::SampleRecording recording = recorder.run(*root, end);
  recording.command.assign(argv.begin(), argv.end());
  return recording;
}

Expected<format::SampleRecording> record_breakpoints_attached(
    pid_t pid, const BreakpointProvider& provider, const BreakpointOptions& options, double seconds,
    AttachedEnd* ended, const std::function<void(size_t threads, size_t planted)>& attached) {
  std::vector<std::string> command = live::process_command_line(pid);
  auto stop = live::ProcessStop::stop(pid);
  if (!stop) {
    const int err = stop.error().errno_value;
    if (err == ESRCH) return Error(fmt::format("process {} does not exist", pid));
    return Error(fmt::format("cannot attach to process {}: {}{}", pid, stop.error().message,
                             err == EPERM ? " (another user's, or traced by a debugger already?)" : ""));
  }
  const bool job_stopped = stop->job_stopped();
  std::vector<pid_t> tids = stop->keep();
  for (pid_t tid : tids) ::ptrace(PTRACE_SETOPTIONS, tid, nullptr, reinterpret_cast<void*>(kAttachOptions));
  AttachSignals signals;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds < 0 ? 0 : seconds);
  Recorder recorder(provider, options);
  trace::ProgramEnd end;
  format::SampleRecording recording = recorder.attach(pid, tids, job_stopped, &end, [&] {
    return signals.stop_requested() || (seconds >= 0 && std::chrono::steady_clock::now() >= deadline);
  }, [&](size_t threads, size_t planted) {
    if (attached) attached(threads, planted);
    signals.start_ticking();
  });
  if (ended) *ended = {recorder.root_ended(), end};
  recording.command = std::move(command);
  return recording;
}

}  // namespace covkit::sample
