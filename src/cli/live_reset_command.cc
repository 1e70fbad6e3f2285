// `covkit live reset PID [SOURCE...]`: options, one call (live/live_dump),
// an exit status.
#include "cli/cli11.h"
#include <fmt/format.h>

#include <cstdio>
#include <string>
#include <vector>

#include "cli/command_line.h"
#include "util/plural.h"
#include "util/printable.h"
#include "cli/live_command.h"
#include "live/live_dump.h"

namespace covkit::cli {

namespace {

constexpr std::string_view kLiveResetCommand = "covkit live reset";

constexpr const char* kLiveResetDescription =
    "Zeroes the coverage counters of a running process built with --coverage, as\n"
    "__gcov_reset() inside it would: all of them, or only those of the objects\n"
    "built from the SOURCE files named (found through each object's .gcno, which\n"
    "names its sources; without one, an object named after the source: foo.c ->\n"
    "foo.gcda or foo.c.gcda). Every thread is stopped for the reset, so no thread\n"
    "is half way through an update (builds with -fprofile-update=atomic: exact;\n"
    "others may keep a counter in a register across a loop, see the manual).\n"
    "\n"
    "When the program exits, its .gcda files then hold what it did after the reset,\n"
    "added to what they held before (one run more).\n";

constexpr const char* kLiveResetFooter =
    "Exit status: 0 on success; 1 on any error (one line on stderr): no such\n"
    "process, not allowed, no coverage data, an unknown libgcov layout, a SOURCE\n"
    "that no object was built from.\n"
    "\n"
    "Examples:\n"
    "  covkit live reset 1234                  every counter\n"
    "  covkit live reset 1234 src/parser.c     the objects built from parser.c\n"
    "\n"
    "The manual is docs/covkit-live.md.";

}  // namespace

int run_live_reset(int argc, char** argv) {
  CLI::App app{kLiveResetDescription, std::string(kLiveResetCommand)};
  app.footer(kLiveResetFooter);
  app.get_formatter()->column_width(26);
  live::ResetRequest request;
  app.add_option("PID", request.pid, "The process")->required()->check(number_in(1, 2147483647));
  app.add_option("SOURCE", request.sources, "Reset only the objects built from these source files");
  app.add_flag("--children", request.children,
               "Also reset every descendant process (all stopped first: all are reset, or none)");
  app.add_flag("--gentle", request.gentle,
               "Leave running the threads asleep in a call that a stop would make fail with EINTR (see the manual)");
  app.add_flag("--skip-unstoppable", request.skip_unstoppable,
               "With --children: leave out, with a warning, a process covkit may not stop instead of failing "
               "before anything is reset");
  if (auto status = parse_command_line(app, argc, argv)) return *status;
  return run_guarded(kLiveResetCommand, [&] {
    request.tell = [](const std::string& w) { std::fprintf(stderr, "covkit live reset: warning: %s\n", util::printable(w).c_str()); };
    auto done = live::reset(request);
    if (!done) return fail(kLiveResetCommand, "", done.error());
    for (const std::string& w : done->warnings)
      std::fprintf(stderr, "covkit live reset: warning: %s\n", util::printable(w).c_str());
    for (const live::ProcessSummary& p : done->processes)
      std::printf("pid %d: %s stopped for %.3f ms%s\n", p.pid, util::count_of(p.threads, "thread").c_str(),
                  p.pause.count() / 1e6, p.left_asleep ? fmt::format(", {} left asleep", p.left_asleep).c_str() : "");
    std::printf("%s reset\n", util::count_of(done->objects_reset, "object").c_str());
    return 0;
  });
}

}  // namespace covkit::cli
