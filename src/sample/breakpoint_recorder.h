#pragma once
// `covkit sample record --mode breakpoint`: exact block (or function)
// coverage of an uninstrumented program with one-shot int3 breakpoints.
// The program runs under ptrace; every address the provider names is
// patched with an int3 before it can run; the first time one fires, the
// original byte goes back, the thread is rewound onto it and goes on, so
// each site costs one stop per address space, however long the program
// runs.
//
// Followed: PIE and fixed executables; shared libraries, those loaded at
// start-up and dlopen'ed ones (the dynamic linker's r_brk, _dl_debug_state,
// carries a persistent breakpoint and the maps are read again at each of its
// hits); threads; forks and vforks; execs (a new image with its own plan).
// A forked child shares its parent's image: same file, same addresses, so
// the image's hits are the union over the processes forked from it.
// The program's own signals (SIGTRAP of its raise() and its own int3s
// included) reach it unchanged; how it ended is returned.
// While it runs, ^C and ^\ are the program's (covkit ignores them, as
// `covkit trace record` does), so an interrupted run still gives its hits.
// covkit waits for every traced process, children that outlive the program
// too. Known limit (as under gdb): an int3 that fires while the thread
// blocks SIGTRAP (inside the program's own SIGTRAP handler) makes the kernel
// reset the program's SIGTRAP disposition to the default; the recording
// then carries a warning saying so.
// Addresses are per image: a module dlclose'd and another mapped at the
// same range later are told apart only by the image's mappings (both are
// listed), so a hit there may belong to either.
#include <sys/types.h>

#include <functional>
#include <span>
#include <string>

#include "format/sample_records.h"
#include "sample/breakpoint_plan.h"
#include "trace/program_run.h"
#include "util/expected.h"

namespace covkit::sample {

struct BreakpointOptions {
  // Follow the dynamic linker to plant in shared libraries (start-up and
  // dlopen). Off: the modules mapped at the exec only (executable, ld.so).
  bool libraries = true;
};

// Runs argv (argv[0] searched in PATH) to its end, and that of every process
// it started, and returns what was planted and hit; mode "breakpoint".
// `end` (may be null) gets how the program ended: its exit status, or the
// signal that killed it (exit(130) and SIGINT are told apart). A program that crashes still yields its hits so far.
// An Error only when the program cannot be started or traced.
Expected<format::SampleRecording> record_breakpoints(std::span<const std::string> argv,
                                                      const BreakpointProvider& provider,
                                                      const BreakpointOptions& options, trace::ProgramEnd* end);

struct AttachedEnd {
  bool ended = false;       // the process ended while recorded
  trace::ProgramEnd end;    // how, when it did
};

// `covkit sample record --pid`: attaches to the running process `pid` (every
// thread, PTRACE_SEIZE), plants as for a launched program (its modules as
// mapped now, libraries it loads later, threads and children it starts),
// follows it for `seconds` (< 0: until SIGINT, SIGTERM or SIGHUP reaches
// covkit, or the process ends), then puts every byte it replaced back and
// detaches: the process goes on as before. Killing covkit with SIGKILL meanwhile
// would leave int3s behind (the process then dies of SIGTRAP at the next one).
// An Error when the process cannot be attached.
// `attached` (may be empty) is called once the int3s are planted, before
// the process goes on, with its threads and the sites planted.
Expected<format::SampleRecording> record_breakpoints_attached(
    pid_t pid, const BreakpointProvider& provider, const BreakpointOptions& options, double seconds,
    AttachedEnd* ended, const std::function<void(size_t threads, size_t planted)>& attached = {});

}  // namespace covkit::sample
