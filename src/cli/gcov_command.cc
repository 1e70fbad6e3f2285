// `covkit gcov`: gcov's options, gcov's run (report/gcov/gcov_run), gcov's exit.
#include "cli/gcov_command.h"

#include <cstdio>
#include <cstdlib>

#include "cli/command_line.h"
#include "cli/gcov_options.h"
#include "report/gcov/gcov_run.h"
#include "util/sanitizer.h"

namespace covkit::cli {

int run_gcov_command(int argc, char** argv) {
  GcovOptions opts;
  switch (parse_gcov_options(argc, argv, opts)) {
    case ParseOutcome::kExitSuccess: return 0;
    case ParseOutcome::kExitFailure: return 1;
    case ParseOutcome::kRun: break;
  }
  int rc = run_guarded("covkit gcov", [&] { return report::run_gcov(opts); });
#if !COVKIT_ASAN
  // What run_gcov left allocated is not worth freeing one object at a time.
  std::fflush(stdout);
  std::fflush(stderr);
  std::_Exit(rc);
#endif
  return rc;
}

}  // namespace covkit::cli
