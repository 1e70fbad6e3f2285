// `covkit sample record [OPTIONS] [--] PROG [ARGS...]`: options, then the
// recording (src/sample/sample_recorder), then PROG's exit status.
#include "cli/cli11.h"
#include <fmt/format.h>

#include <signal.h>
#include <sys/resource.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <optional>
#include <string_view>
#include <string>
#include <vector>

#include "cli/command_line.h"
#include "cli/output_options.h"
#include "cli/sample_command.h"
#include "cli/version.h"
#include "live/process_owner.h"
#include "sample/breakpoint_session.h"
#include "sample/perf_event_session.h"
#include "sample/perf_recorder.h"
#include "sample/sample_analysis.h"
#include "sample/sample_environment.h"
#include "sample/sample_mode.h"
#include "sample/sample_recorder.h"
#include "sample/sample_recording_dir.h"
#include "trace/duration.h"
#include "trace/program_run.h"
#include "trace/program_info.h"
#include "trace/recording_dir.h"
#include "util/plural.h"
#include "util/printable.h"

namespace covkit::cli {

namespace {

constexpr std::string_view kSampleRecordCommand = "covkit sample record";

constexpr const char* kSampleRecordDescription =
    "Runs PROG with ARGS and records where it goes. In the sampling modes,\n"
    "where the kernel does not sample (--source below), under the sampling\n"
    "runtime (libcovkit-sample.so, found next to covkit or, installed, in\n"
    "LIBDIR/covkit; preloaded with LD_PRELOAD): every thread gets a timer of its own CPU time that fires at\n"
    "random intervals around the period; at each tick the runtime records\n"
    "where the thread is and its frame-pointer call stack.\n"
    "\n"
    "--mode auto (the default) chooses from what the machine offers: branch where\n"
    "the PMU has a branch stack (perf_event_open), else breakpoint (a virtual\n"
    "machine's emulated branch vectors cost milliseconds each: a short program\n"
    "would get no sample at all).\n"
    "\n"
    "--mode branch then single-steps the thread (the x86 trap\n"
    "flag) until it has taken N branches (--vector-length), recording every\n"
    "instruction address: the branch vector a PMU's branch stack would give,\n"
    "emulated where there is none (virtual machines). --mode pc records the\n"
    "tick's address and stack only, at a fraction of the cost.\n"
    "\n"
    "--source perf samples through the kernel's perf_event_open instead, with\n"
    "nothing preloaded (static programs too): in branch mode the PMU's own\n"
    "branch stack (Intel LBR, AMD BRS, ARM BRBE) on CPU cycles, 4000 times a\n"
    "second of CPU by default (perf record's rate); in pc mode the\n"
    "cpu-clock event. Both record the user call chain and every executable\n"
    "mapping (MMAP2: PIE programs and shared libraries where they loaded), and\n"
    "follow forks and execs. --source auto (the default) takes the PMU's branch\n"
    "stack in branch mode where there is one, and says so when it emulates\n"
    "it; in pc mode perf_event_open's cpu-clock wherever it is permitted,\n"
    "else the runtime; perf for a statically linked PROG in either mode.\n"
    "perf_event_open needs kernel.perf_event_paranoid <= 2 (user space of\n"
    "one's own processes, as here) or CAP_PERFMON.\n"
    "\n"
    "--mode breakpoint plants an int3 at the start of every block of the program\n"
    "and its own libraries that no other block implies (the CFG's dominators),\n"
    "and removes each on its first hit: exact block coverage at a cost per block\n"
    "reached, not per execution. Only images with line information (-g) that\n"
    "are no system library are planted (a shell or a stripped tool in the\n"
    "workload shows nothing and would cost a trap per block): --images PATTERN\n"
    "plants exactly the images whose path matches, --all-images every one;\n"
    "`sample report` names the images left out. By default\n"
    "the runtime does it inside the program: it asks covkit where to plant (a\n"
    "unix socket), plants before main() runs, follows dlopen, and takes each\n"
    "int3's SIGTRAP itself (~15 us a block on this VM); the program's own SIGTRAP\n"
    "handler still gets every other SIGTRAP, and SIGTRAP is kept out of the\n"
    "masks it blocks. --breakpoint-handler ptrace runs PROG under ptrace\n"
    "instead: covkit stops the thread at each int3 (~35 us a block), which also\n"
    "works for statically linked and setuid programs (chosen by itself for a\n"
    "static PROG).\n"
    "\n"
    "--pid PID (breakpoint mode) attaches to a running process instead: every\n"
    "thread is stopped for an instant (ptrace, as a debugger; the same user or\n"
    "root), the int3s are planted in the modules it has mapped, and its blocks\n"
    "are recorded as they run — libraries it loads, threads and children it\n"
    "starts included — for --for T, or until Ctrl-C (SIGINT, SIGTERM, SIGHUP) or\n"
    "its end. Then every byte covkit replaced is put back and the process goes\n"
    "on. Do not kill covkit with SIGKILL while attached: the int3s left behind\n"
    "would kill the process. In pc mode (and branch mode with a PMU), --pid\n"
    "samples the process through perf_event_open instead, without stopping it:\n"
    "its threads, those they start, the mappings it has (read from /proc) and\n"
    "makes; the preloaded runtime cannot attach.\n"
    "\n"
    "Children that PROG forks are sampled too, and programs it executes (each\n"
    "process image writes its own file, with its executable mappings and their\n"
    "build-ids). A crash of PROG leaves the samples written until then.\n"
    "\n"
    "The recording directory is created (an empty one is taken). One that holds\n"
    "an earlier sample recording is moved to DIR.old first; anything else is\n"
    "refused. covkit writes one summary line on stderr when PROG ends, and exits\n"
    "with PROG's exit status (128 + the signal number when a signal killed it).\n";

constexpr const char* kSampleRecordFooterEnd =
    "\n"
    "Exit status: PROG's; 128 + N when signal N killed it; 127 when PROG cannot be\n"
    "found or run, 126 when it is no program (a directory, not executable), as a\n"
    "shell says; 1 on covkit's own errors (one line on stderr), and when the\n"
    "recording holds no sample or hit (PROG's status when that was not 0; an\n"
    "earlier recording is kept; --allow-empty keeps the empty one and exits as\n"
    "PROG did). With --pid: 0 when the recording was written (the process's own\n"
    "end is said on stderr), 1 when it cannot be attached or recorded nothing.\n"
    "\n"
    "Examples:\n"
    "  covkit sample record -- ./prog input.txt\n"
    "  covkit sample record --mode pc --period 1ms -o /tmp/s -- make check\n"
    "  covkit sample record --vector-length 32 -- ./server --once\n"
    "  covkit sample record --mode breakpoint -o cov.sample -- ./tests --all\n"
    "  covkit sample record --mode breakpoint --pid 4242 --for 30s -o srv.sample\n"
    "  covkit sample record --mode pc --pid 4242 --for 10s -o srv.pc      # perf_event_open\n"
    "  covkit sample record --source perf -- ./static-prog                # the PMU's branch stack";

class SampleRecordFormatter : public HelpFormatter {
 public:
  std::string make_usage(const CLI::App*, std::string) const override {
    return "Usage: covkit sample record [OPTIONS] [--] PROG [ARGS...]\n"
           "       covkit sample record --mode breakpoint|pc|branch --pid PID [--for T] [OPTIONS]\n";
  }
};

struct SampleRecordOptions {
  std::string mode = "auto", period, dir = "covkit-sample.data", duration, handler = "runtime", source = "auto";
  uint32_t vector_length = 16;
  uint32_t mmap_pages = 0;  // --mmap-pages; 0: covkit's default
  pid_t pid = 0;
  std::vector<std::string> images;  // --images
  bool all_images = false;
  bool allow_empty = false;
};

sample::ImageSelection image_selection(const SampleRecordOptions& o) {
  sample::ImageSelection s;
  s.patterns = o.images;
  s.all = o.all_images;
  return s;
}

void warn_sample_record(const std::string& what) {
  std::fprintf(stderr, "%s: warning: %s\n", std::string(kSampleRecordCommand).c_str(), util::printable(what).c_str());
}

// --mode auto: what this machine offers. The PMU's branch stack samples at
// little cost; without one (virtual machines) a sample costs milliseconds of
// single steps and a short program gets none, so breakpoints (exact, a cost
// per block) are the mode that records something. An explicit --source
// or --period keeps the sampling mode.
sample::SampleMode default_mode(const SampleRecordOptions& o, std::string& why) {
  if (o.source != "auto" || !o.period.empty()) return sample::SampleMode::branch;
  auto probe = sample::probe_perf(sample::PerfEventKind::branch_stack);
  if (probe) return sample::SampleMode::branch;
  why = probe.error().message;
  return sample::SampleMode::breakpoint;
}

// Whether the recording holds nothing to report: no sample (sampling
// modes) or no breakpoint hit.
bool empty_recording(const sample::RecordOutcome& out) {
  if (!out.recording) return false;  // unreadable: said already
  return out.recording->samples.empty() && out.recording->hits.empty();
}

// A recording that holds something: the older one parked while it ran
// (DIR.older, what DIR.old held) goes.
void keep(const sample::RecordOutcome& out) {
  if (auto kept = trace::keep_recording(out.dir, trace::RecorderFiles{"covkit sample record", sample::written_by_sampler});
      !kept)
    warn_sample_record(kept.error().message);
}

// An empty recording: said loudly, and unless --allow-empty it does not
// replace an earlier one and the exit status is not 0 (issue 35: "0
// samples" and exit 0 read as success).
// Breakpoint mode with nothing planted at all: which images were left out
// and why (no line information, a system library), rather than "ran none of
// the planted blocks", which reads as if the program never got there.
std::string nothing_planted(const format::SampleRecording& rec) {
  constexpr size_t kNamed = 3;
  // The program's own images first: that system libraries are left out is
  // the rule, not the news.
  std::vector<const format::LeftOutImage*> order;
  for (const format::LeftOutImage& l : rec.left_out)
    if (l.reason.find("system librar") == std::string::npos) order.push_back(&l);
  for (const format::LeftOutImage& l : rec.left_out)
    if (l.reason.find("system librar") != std::string::npos) order.push_back(&l);
  std::string why = "nothing was planted";
  for (size_t i = 0; i < order.size() && i < kNamed; ++i)
    why += fmt::format("{} {}: {}", i ? ";" : ":", util::printable(order[i]->path), order[i]->reason);
  if (order.size() > kNamed) why += fmt::format("; {} more", util::count_of(order.size() - kNamed, "image"));
  if (order.empty()) why += ": no image of the program could be planted";
  return why;
}

int refuse_empty(const SampleRecordOptions& o, const sample::RecordOutcome& out, sample::SampleMode mode, int status) {
  const bool breakpoint = mode == sample::SampleMode::breakpoint;
  const std::string what = breakpoint ? "no breakpoint was hit" : "no sample was taken";
  const bool none_planted =
      breakpoint && out.recording && out.recording->planted.empty() && out.recording->planted_not_kept == 0;
  // What the runtime said of SIGPROF, in ticks modes.
  auto runtime_said = [&](std::string_view text) {
    return !breakpoint && out.recording &&
           std::any_of(out.recording->warnings.begin(), out.recording->warnings.end(),
                       [&](const std::string& w) { return w.find(text) != std::string::npos; });
  };
  // The program took SIGPROF for itself before the first tick (GNU sort
  // catches it as a termination signal): the runtime stopped, and says so.
  const bool sigprof_taken = runtime_said("set its own SIGPROF disposition");
  // Its threads kept SIGPROF blocked (a pool blocking every signal in its
  // workers): the ticks were held back, which the runtime tells at their end.
  const bool ticks_held = runtime_said("kept SIGPROF blocked");
  const std::string why =
      none_planted    ? nothing_planted(*out.recording)
      : breakpoint    ? "the program ran none of the planted blocks"
      : sigprof_taken ? "the program set its own SIGPROF handler before the first sample, and sampling stopped "
                        "there: --mode breakpoint does not use SIGPROF"
      : ticks_held    ? "the threads that ran kept SIGPROF blocked, so no tick of the runtime reached them: "
                        "--source perf or --mode breakpoint does not use SIGPROF"
                      : "the program ended before its first sample: a short run needs --mode breakpoint or a shorter "
                        "--period";
  if (o.allow_empty) {
    warn_sample_record(fmt::format("the recording is empty: {} ({})", what, why));
    keep(out);
    return status;
  }
  auto discarded = trace::discard_recording(
      out.dir, out.moved_to, trace::RecorderFiles{"covkit sample record", sample::written_by_sampler});
  const std::string kept = !discarded ? fmt::format("; {}", discarded.error().message)
                           : out.moved_to.empty()
                               ? std::string()
                               : fmt::format("; the earlier recording is back in {}", util::printable(out.dir));
  fail(kSampleRecordCommand, "",
       fmt::format("the recording is empty: {} ({}); --allow-empty keeps it{}", what, why, kept));
  return status != 0 ? status : 1;
}

// Where an earlier recording went, the recording's warnings and its summary
// line (`who`: the program or process, for the nothing-written warning).
void say_outcome(const SampleRecordOptions& o, const sample::RecordOutcome& out, const std::string& who) {
  if (!out.moved_to.empty())
    std::fprintf(stderr, "%s: the earlier recording in %s is now %s\n", std::string(kSampleRecordCommand).c_str(),
                 util::printable(o.dir).c_str(), util::printable(out.moved_to).c_str());
  if (!out.recording)
    warn_sample_record(fmt::format("the recording in {} cannot be read: {}", util::printable(out.dir), out.read_error));
  else if (out.recording->images.empty())
    warn_sample_record(fmt::format("nothing was written in {}: {} did not load the runtime (a static or setuid program, or one "
                     "that clears LD_PRELOAD?)",
                     util::printable(out.dir), who));
  else {
    for (const std::string& w : out.recording->warnings) warn_sample_record(util::printable(w));
    std::fprintf(stderr, "%s: %s\n", std::string(kSampleRecordCommand).c_str(),
                 sample::sample_summary_line(*out.recording, out.dir).c_str());
  }
}

// CPU time of the children covkit has waited for, in ns.
uint64_t children_cpu_ns() {
  struct rusage u {};
  if (::getrusage(RUSAGE_CHILDREN, &u) != 0) return 0;
  const auto ns = [](const timeval& t) { return uint64_t(t.tv_sec) * 1'000'000'000 + uint64_t(t.tv_usec) * 1'000; };
  return ns(u.ru_utime) + ns(u.ru_stime);
}

// The runtime's ticks are CPU-time timers, which the kernel fires on its
// scheduler tick (every 4 ms at 250 Hz): a --period below it gives fewer
// samples than asked for, which the user is told (as perf record says when
// it lowers a frequency), from what the run gave.
void warn_coarse_ticks(uint64_t period_ns, uint64_t cpu_ns, size_t samples) {
  if (samples < 50 || cpu_ns < 2 * period_ns * samples) return;
  warn_sample_record(fmt::format("--period {:g} ms: the program got a sample every {:.1f} ms of its CPU time ({} in "
                                 "{:.2f} s): the kernel fires CPU-time timers only on its scheduler tick (CONFIG_HZ); "
                                 "--source perf samples at the period asked for",
                                 double(period_ns) / 1e6, double(cpu_ns) / double(samples) / 1e6,
                                 util::count_of(samples, "sample"), double(cpu_ns) / 1e9));
}

// --pid: the recording of a running process, and 0 (its end is said, not
// passed on: the process was not covkit's).
int record_attached(const SampleRecordOptions& o, sample::RecordRequest r) {
  if (::kill(o.pid, 0) != 0 && errno == ESRCH)  // before the directory is made
    return fail(kSampleRecordCommand, "", fmt::format("process {} does not exist", o.pid));
  r.attach_pid = o.pid;
  // The recording holds what the process's memory held: no more open than
  // that memory (another user's process gives a private recording).
  live::note_process_data(o.pid);
  if (!o.duration.empty()) {
    auto ns = trace::parse_duration_ns(o.duration);
    if (!ns) return fail(kSampleRecordCommand, "", fmt::format("--for {}: not a duration (500ms, 10s, 1.5s)", o.duration));
    r.attach_seconds = double(*ns) / 1e9;
  }
  const bool breakpoint = r.mode == sample::SampleMode::breakpoint;
  r.on_attached = [&](size_t threads, size_t planted) {
    const std::string what = breakpoint ? fmt::format("{} planted", util::count_of(planted, "breakpoint"))
                                        : fmt::format("sampled by perf_event_open every {:g} ms of CPU",
                                                      double(sample::perf_period_ns(r)) / 1e6);
    std::fprintf(stderr, "%s: attached to process %d (%s, %s), recording into %s%s\n",
                 std::string(kSampleRecordCommand).c_str(), int(o.pid), util::count_of(threads, "thread").c_str(),
                 what.c_str(),
                 util::printable(o.dir).c_str(), o.duration.empty() ? "; Ctrl-C to stop" : "");
  };
  auto out = breakpoint ? sample::record_breakpoint_session(r, image_selection(o))
                        : sample::record_with_perf(r);
  if (!out) return fail(kSampleRecordCommand, "", out.error().message);
  say_outcome(o, *out, fmt::format("process {}", o.pid));
  int status = 0;
  if (empty_recording(*out)) status = refuse_empty(o, *out, r.mode, 0);
  else keep(*out);
  if (!out->ended)
    std::fprintf(stderr, "%s: detached from process %d, which goes on\n", std::string(kSampleRecordCommand).c_str(), int(o.pid));
  else if (!out->end_known)
    std::fprintf(stderr, "%s: process %d ended meanwhile\n", std::string(kSampleRecordCommand).c_str(), int(o.pid));
  else if (out->end.signal)
    std::fprintf(stderr, "%s: process %d was killed by signal %d meanwhile\n", std::string(kSampleRecordCommand).c_str(),
                 int(o.pid), out->end.signal);
  else
    std::fprintf(stderr, "%s: process %d exited with status %d meanwhile\n", std::string(kSampleRecordCommand).c_str(),
                 int(o.pid), out->end.exit_status);
  return status;
}

// --period into r.period_ns; an exit status when it is not a duration.
std::optional<int> read_period(const SampleRecordOptions& o, sample::RecordRequest& r) {
  if (o.period.empty()) return std::nullopt;
  auto ns = trace::parse_duration_ns(o.period);
  if (!ns || *ns < 100'000)
    return fail(kSampleRecordCommand, "", fmt::format("--period {}: not a duration of at least 100us (100us, 5ms, 1s)", o.period));
  r.period_ns = *ns;
  return std::nullopt;
}

int record(const SampleRecordOptions& o, std::vector<std::string> command) {
  if (!command.empty() && command.front() == "--") command.erase(command.begin());
  std::string no_pmu;  // why auto chose breakpoints
  auto mode = o.mode == "auto" ? std::optional(default_mode(o, no_pmu)) : sample::parse_mode(o.mode);
  if (!mode) return fail(kSampleRecordCommand, "", fmt::format("--mode {}: not a mode (branch, breakpoint, pc)", o.mode));
  // Said once the recording is made (a refusal stays one line).
  auto say_mode = [&] {
    if (!no_pmu.empty())
      std::fprintf(stderr, "%s: %s: recorded in breakpoint mode (exact blocks; --mode branch or pc to sample)\n",
                   std::string(kSampleRecordCommand).c_str(), no_pmu.c_str());
  };
  const bool sampling = *mode != sample::SampleMode::breakpoint;
  if (sampling && (!o.images.empty() || o.all_images))
    return fail(kSampleRecordCommand, "", "--images and --all-images go with --mode breakpoint (they choose where to plant)");
  if (!sampling && o.source == "perf")
    return fail(kSampleRecordCommand, "", "--source perf goes with --mode branch or pc (breakpoints are planted by covkit)");
  if (o.mmap_pages && (!sampling || o.source == "runtime"))
    return fail(kSampleRecordCommand, "", "--mmap-pages sizes perf_event_open's rings: it goes with --mode branch or pc "
                                          "sampled through perf");
  if (o.mmap_pages & (o.mmap_pages - 1))
    return fail(kSampleRecordCommand, "", fmt::format("--mmap-pages {}: not a power of two", o.mmap_pages));
  if (o.pid) {
    if (!command.empty()) return fail(kSampleRecordCommand, "", "--pid attaches to a running process: give no PROG with it");
    if (sampling && o.source == "runtime")
      return fail(kSampleRecordCommand, "", "--pid cannot use --source runtime (the runtime is preloaded when a program "
                                            "starts): --source perf samples a running process");
    if (*mode == sample::SampleMode::branch) {
      if (auto probe = sample::probe_perf(sample::PerfEventKind::branch_stack); !probe)
        return fail(kSampleRecordCommand, "", fmt::format("--pid in branch mode needs the PMU's branch stack: {} (--mode pc "
                                                          "samples a running process without one)",
                                                          probe.error().message));
    }
    sample::RecordRequest r;
    r.mode = *mode;
    r.dir = o.dir;
    r.environment = trace::current_environment();
    r.covkit_version = kVersion;
    if (auto status = read_period(o, r)) return *status;
    r.ring_pages = o.mmap_pages;
    const int status = record_attached(o, std::move(r));
    say_mode();
    return status;
  }
  if (!o.duration.empty()) return fail(kSampleRecordCommand, "", "--for goes with --pid (a program started by covkit runs to its end)");
  if (command.empty()) return fail(kSampleRecordCommand, "", "no program to run (see covkit sample record --help)");
  sample::RecordRequest r;
  r.mode = *mode;
  if (auto status = read_period(o, r)) return *status;
  r.vector_length = o.vector_length;
  r.ring_pages = o.mmap_pages;
  auto prog = trace::find_program(command[0]);
  if (!prog) return fail(kSampleRecordCommand, command[0], prog.error().message, prog.error().status);
  trace::ProgramInfo info = trace::inspect_program(*prog);
  r.in_process = o.handler == "runtime";
  const bool is_static = info.elf && !info.dynamic;
  // Where the samples come from: perf_event_open, or the preloaded runtime.
  bool use_perf = false;
  std::string emulated;  // why branch vectors were emulated (said with the summary)
  if (sampling && o.source != "runtime") {
    if (*mode == sample::SampleMode::branch) {
      auto probe = sample::probe_perf(sample::PerfEventKind::branch_stack);
      if (!probe && o.source == "perf")
        return fail(kSampleRecordCommand, "", fmt::format("--source perf: {} (--source runtime emulates it)", probe.error().message));
      // No branch stack here, or not permitted: emulated. Any other refusal
      // is covkit's own fault, never hidden behind the emulation.
      if (!probe && probe.error().kind == sample::RefusalKind::failed)
        return fail(kSampleRecordCommand, "", probe.error().message);
      use_perf = bool(probe);
      if (!probe && !is_static) emulated = probe.error().message;
    } else {
      // The kernel's cpu-clock wherever it is permitted: nothing preloaded,
      // no signal in the program, samples from the exec on. A static PROG
      // gets it in any case (no runtime can be preloaded into it), and
      // --source perf reports a refusal when the recording starts.
      use_perf = o.source == "perf" || is_static;
      if (!use_perf) {
        auto probe = sample::probe_perf(sample::PerfEventKind::cpu_clock);
        if (!probe && probe.error().kind == sample::RefusalKind::failed)
          return fail(kSampleRecordCommand, "", probe.error().message);
        use_perf = bool(probe);
      }
    }
  }
  if (is_static && sampling && !use_perf)
    warn_sample_record(fmt::format("{} is statically linked, so LD_PRELOAD cannot load the runtime: nothing will be sampled",
                     util::printable(*prog)));
  if (is_static && !sampling && r.in_process) {
    std::fprintf(stderr, "%s: %s is statically linked (no runtime can be preloaded): its breakpoints are taken under ptrace\n",
                 std::string(kSampleRecordCommand).c_str(), util::printable(*prog).c_str());
    r.in_process = false;
  }
  r.program = *prog;
  r.command = command;
  r.dir = o.dir;
  r.environment = trace::current_environment();
  r.covkit_version = kVersion;

  const uint64_t cpu_before = children_cpu_ns();
  auto out = *mode == sample::SampleMode::breakpoint
                 ? sample::record_breakpoint_session(r, image_selection(o))
             : use_perf ? sample::record_with_perf(r)
                        : sample::record_samples(r);
  if (!out) return fail(kSampleRecordCommand, "", out.error().message, out.error().program_not_started ? 127 : 1);
  say_mode();
  // pc mode only: in branch mode the CPU a vector's stepping takes gives no
  // tick (the timer is then a watchdog), so the ratio would say nothing.
  if (*mode == sample::SampleMode::pc && !use_perf && r.period_ns && out->recording)
    warn_coarse_ticks(r.period_ns, children_cpu_ns() - cpu_before, out->recording->samples.size());
  if (!emulated.empty())
    std::fprintf(stderr, "%s: %s: branch vectors were emulated by stepping the program (about 0.3-1 ms each)\n",
                 std::string(kSampleRecordCommand).c_str(), emulated.c_str());
  say_outcome(o, *out, util::printable(*prog));
  const trace::ProgramEnd& end = out->end;
  const int status = end.signal != 0 ? 128 + end.signal : end.exit_status;
  if (end.signal != 0) {
    const char* name = sigabbrev_np(end.signal);
    std::fprintf(stderr, "%s: %s was killed by signal %d (SIG%s)%s; the recording holds what was written until then\n",
                 std::string(kSampleRecordCommand).c_str(), util::printable(command[0]).c_str(), end.signal, name ? name : "?",
                 end.core_dumped ? ", core dumped" : "");
  }
  if (empty_recording(*out)) return refuse_empty(o, *out, *mode, status);
  keep(*out);
  return status;
}

}  // namespace

int run_sample_record(int argc, char** argv) {
  CLI::App app{kSampleRecordDescription, std::string(kSampleRecordCommand)};
  app.formatter(std::make_shared<SampleRecordFormatter>());
  app.footer(sample::sample_environment_help() + kSampleRecordFooterEnd);
  app.get_formatter()->column_width(30);
  SampleRecordOptions o;
  app.add_option("--mode", o.mode,
                 "auto (the default): branch where the PMU has a branch stack, else breakpoint; branch: branch "
                 "vectors (the PMU's, or emulated by single-stepping); breakpoint: exact blocks, one-shot int3s; "
                 "pc: addresses and stacks only")
      ->check(CLI::IsMember({"auto", "branch", "breakpoint", "pc"}))
      ->type_name("MODE");
  app.add_option("--period", o.period,
                 "Mean thread CPU time between samples [default: 80ms for branch (about 3% overhead without a "
                 "PMU), 250us with the PMU (--source perf), 10ms for pc]; 100us, 5ms, 1s")
      ->type_name("T");
  app.add_option("--source", o.source,
                 "Where samples come from: auto (the default: branch mode the PMU's branch stack where there is "
                 "one, pc mode perf_event_open's cpu-clock where permitted, else the runtime), perf (the "
                 "kernel's perf_event_open: PMU branch stack or cpu-clock, nothing preloaded), runtime (the "
                 "preloaded runtime: single-step emulation, timer)")
      ->check(CLI::IsMember({"auto", "perf", "runtime"}))
      ->type_name("SOURCE");
  app.add_option("--vector-length", o.vector_length, "Taken branches per sample in branch mode [default: 16]")
      ->check(whole_number_in(4, 64))
      ->type_name("N");
  app.add_option("--mmap-pages", o.mmap_pages,
                 "Data pages of each perf_event_open ring (a power of two) [default: 64, fewer where the "
                 "locked-memory limit says so]; a small ring is read more often and may lose samples")
      ->check(whole_number_in(1, 4096))
      ->type_name("N");
  app.add_option("--breakpoint-handler", o.handler,
                 "Breakpoint mode: runtime (inside PROG, preloaded; the default) or ptrace (covkit stops each thread "
                 "at its int3s: static and setuid programs; --pid always)")
      ->check(CLI::IsMember({"runtime", "ptrace"}))
      ->type_name("HOW");
  add_output_dir_option(app, o.dir, "the recording", "./covkit-sample.data");
  app.add_option("--pid", o.pid, "Attach to this running process instead of starting PROG (--mode breakpoint; pc and "
                                 "branch through perf_event_open)")
      ->type_name("PID")
      ->check(number_in(1, 2147483647));
  app.add_option("--images", o.images,
                 "Breakpoint mode: plant exactly the images (executable, libraries) whose path matches PATTERN "
                 "(fnmatch; without '/': the file name), line information or not [default: the images with line "
                 "information, system libraries left out]; repeatable")
      ->type_name("PATTERN")
      ->allow_extra_args(false);
  app.add_flag("--all-images", o.all_images, "Breakpoint mode: plant every image, system libraries and programs "
                                             "without line information included");
  app.add_flag("--allow-empty", o.allow_empty,
               "Keep a recording that holds no sample or hit (a warning, PROG's exit status) instead of refusing it "
               "(exit 1, an earlier recording kept)");
  app.add_option("--for", o.duration, "With --pid: detach after T (500ms, 10s) [default: at Ctrl-C or the process's end]")
      ->type_name("T");
  // Everything from PROG on is PROG's.
  app.prefix_command();
  if (auto status = parse_command_line(app, argc, argv)) return *status;
  return run_guarded(kSampleRecordCommand, [&] { return record(o, app.remaining()); });
}

}  // namespace covkit::cli
