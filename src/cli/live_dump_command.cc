// `covkit live dump PID`: options, one call (live/live_dump), what was done
// and how long the process was stopped, an exit status.
#include "cli/cli11.h"
#include <fmt/format.h>

#include <cstdio>
#include <string>

#include "cli/command_line.h"
#include "cli/output_options.h"
#include "util/plural.h"
#include "util/printable.h"
#include "cli/live_command.h"
#include "live/live_dump.h"

namespace covkit::cli {

namespace {

constexpr std::string_view kLiveDumpCommand = "covkit live dump";

constexpr const char* kLiveDumpDescription =
    "Writes the coverage counters of a running process as .gcda files, byte for\n"
    "byte what the program's own libgcov would write at that instant (what\n"
    "__gcov_dump() would write): every module built with --coverage (the\n"
    "executable, its shared libraries, dlopen'ed ones), every counter kind, the\n"
    "object summary and run count. gcov, `covkit gcov` and `covkit report` read\n"
    "them as usual. The program needs no rebuild, no library and no help.\n"
    "\n"
    "By default every thread of the process is stopped while the counters are\n"
    "read (and zeroed, with --reset), so the snapshot is one instant; the pause\n"
    "is printed. Only what the kernel's ptrace rules allow: the same user, or\n"
    "root (and Yama's ptrace_scope). A stop makes a thread blocked in\n"
    "epoll_wait, sigtimedwait, semop, io_getevents (or a socket call with a\n"
    "timeout) return EINTR, as SIGSTOP does; --gentle leaves such threads\n"
    "asleep, --no-stop stops nothing. With --children the whole tree is\n"
    "stopped before anything is read: one instant, all or nothing.\n"
    "\n"
    "Where the files go:\n"
    "  -o DIR   DIR/<the .gcda's absolute path>, as GCOV_PREFIX=DIR would put it;\n"
    "           the files are written all or nothing, never through a symbolic link\n"
    "  no -o    the program's own .gcda paths (its GCOV_PREFIX honoured), added to\n"
    "           what is there as libgcov adds, written as the program's user;\n"
    "           needs --reset (see below)\n"
    "\n"
    "Counting each thing once: with --reset a dump is `__gcov_dump();\n"
    "__gcov_reset();` done from outside: the counters restart from zero and the\n"
    "run is marked counted, so the dumps plus what the program writes when it\n"
    "exits add up exactly to everything it did, one run, even if covkit is\n"
    "killed at any instant: what it read is in its journal (COVKIT_STATE_DIR,\n"
    "else /var/lib/covkit or ~/.local/state/covkit) before the reset, and the\n"
    "next dump finishes a dump that was killed. A dump without --reset holds\n"
    "everything so far, so it is only written to files that do not exist yet\n"
    "(a new -o directory): never add it to anything.\n";

constexpr const char* kLiveDumpFooter =
    "Exit status: 0 when every file was written; 1 on any error (one line on\n"
    "stderr; then no file was written): no such process, not allowed, no coverage\n"
    "data, a libgcov layout covkit does not know (it reads GCC 11 and 12), the\n"
    "process exited during the dump, an existing file that cannot be added to.\n"
    "\n"
    "Examples:\n"
    "  covkit live dump 1234 -o /tmp/snap && covkit report /tmp/snap\n"
    "  covkit live dump --reset 1234              into the program's own files\n"
    "  covkit live dump --reset 1234 -o d1; ...; covkit live dump --reset 1234 -o d2\n"
    "  covkit live dump --children --merge 1234 -o snap   a pre-fork server, added up\n"
    "  covkit live dump --gentle 1234 -o snap     an idle server's epoll_wait undisturbed\n"
    "\n"
    "The manual is docs/covkit-live.md.";

struct LiveDumpOptions {
  live::DumpRequest request;
  bool no_stop = false;
  bool verbose = false;
};

int run(LiveDumpOptions& o) {
  o.request.stop = !o.no_stop;
  if (o.request.merge && !o.request.children) return fail(kLiveDumpCommand, "", "--merge needs --children");
  if (o.request.gentle && o.no_stop) return fail(kLiveDumpCommand, "", "--gentle is a way to stop: not with --no-stop");
  if (o.request.directory.empty() && !o.request.reset)
    return fail(kLiveDumpCommand, "",
                "without -o the dump goes into the program's own .gcda files, which the program adds to again when "
                "it exits: use --reset (so nothing is counted twice), or -o DIR for a snapshot");
  o.request.tell = [](const std::string& w) { std::fprintf(stderr, "covkit live dump: warning: %s\n", util::printable(w).c_str()); };
  auto done = live::dump(o.request);
  if (!done) return fail(kLiveDumpCommand, "", done.error());
  for (const std::string& w : done->warnings)
    std::fprintf(stderr, "covkit live dump: warning: %s\n", util::printable(w).c_str());
  for (const live::WrittenFile& f : done->files)
    if (f.replaced)
      std::fprintf(stderr, "covkit live dump: warning: %s: replaced (it held another compilation's data, as libgcov "
                   "replaces it)\n", util::printable(f.path).c_str());
  for (const live::ProcessSummary& p : done->processes) {
    if (o.verbose)
      for (const std::string& m : p.module_notes) std::printf("pid %d: %s\n", p.pid, util::printable(m).c_str());
    std::string pause = p.stopped ? fmt::format("{} stopped for {:.3f} ms", util::count_of(p.threads, "thread"),
                                                p.pause.count() / 1e6)
                                  : std::string("not stopped (--no-stop)");
    if (p.left_asleep) pause += fmt::format(", {} left asleep", p.left_asleep);
    std::printf("pid %d: %s, %s, %s, %s; %s%s\n", p.pid, util::count_of(p.modules, "module").c_str(),
                util::count_of(p.objects, "object").c_str(), util::count_of(p.functions, "function").c_str(),
                util::count_of(p.counters, "counter").c_str(), pause.c_str(), o.request.reset ? "; counters reset" : "");
  }
  if (done->reads > 1)
    std::printf("read again %s: a thread left asleep woke meanwhile%s\n", util::count_of(done->reads - 1, "time").c_str(),
                done->reads >= 3 ? " (the last time every thread was stopped)" : "");
  size_t added = 0;
  for (const live::WrittenFile& f : done->files) {
    added += f.added;
    if (o.verbose) std::printf("%s %s\n", f.added ? "added to" : "wrote", util::printable(f.path).c_str());
  }
  std::printf("%s written (%zu added to existing ones)%s%s\n", util::count_of(done->files.size(), "file").c_str(), added,
              o.request.directory.empty() ? "" : " under ", o.request.directory.c_str());
  return 0;
}

}  // namespace

int run_live_dump(int argc, char** argv) {
  CLI::App app{kLiveDumpDescription, std::string(kLiveDumpCommand)};
  app.footer(kLiveDumpFooter);
  app.get_formatter()->column_width(26);
  LiveDumpOptions o;
  app.add_option("PID", o.request.pid, "The process to dump")->required()->check(number_in(1, 2147483647));
  add_output_dir_option(app, o.request.directory, "the .gcda files (DIR created if needed)");
  app.add_flag("--reset", o.request.reset,
               "Zero the counters in the same stop: successive dumps are deltas that add up exactly");
  app.add_flag("--no-stop", o.no_stop,
               "Read without stopping the process: no pause, but the counters are read while threads go on "
               "counting, so the snapshot is not one instant (not with --reset)");
  app.add_flag("--gentle", o.request.gentle,
               "Leave running the threads asleep in a call that a stop would make fail with EINTR (epoll_wait, "
               "sigtimedwait...), checking they slept through the read; see the manual");
  app.add_flag("--children", o.request.children,
               "Also dump every descendant process (with -o: each into DIR/PID/ unless --merge)");
  app.add_flag("--merge", o.request.merge, "With --children: add the processes together, as libgcov adds runs");
  app.add_flag("--skip-unstoppable", o.request.skip_unstoppable,
               "With --children: leave out, with a warning, a process covkit may not stop (traced by a debugger, "
               "another user's) instead of failing before anything is touched");
  app.add_flag("-v,--verbose", o.verbose, "Also list each module (how its root was found) and each file");
  if (auto status = parse_command_line(app, argc, argv)) return *status;
  return run_guarded(kLiveDumpCommand, [&] { return run(o); });
}

}  // namespace covkit::cli
