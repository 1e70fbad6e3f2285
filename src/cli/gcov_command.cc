// `covkit gcov`: gcov's options, gcov's run (report/gcov/gcov_run), gcov's exit.
#include "cli/gcov_command.h"

#include <cstdio>
#include <cstdlib>

#include "cli/command_line.h"
#include "cli/gcov_options.h"
#include "model/gcov_session.h"
#include "report/gcov/gcov_run.h"
#include "util/fast_allocator.h"
#include "util/foreign_data.h"
#include "util/sanitizer.h"

namespace covkit::cli {

namespace {

constexpr uint64_t kFastAllocatorWorthIt = uint64_t(256) << 10;

// The notes and data files the run will read, as gcov names them.
std::vector<std::string> inputs_of(const report::GcovOptions& opts) {
  std::vector<std::string> files;
  for (const std::string& arg : opts.files) {
    std::string notes, data;
    model::derive_file_names(arg, opts.object_directory, notes, data);
    files.push_back(std::move(notes));
    files.push_back(std::move(data));
  }
  return files;
}

}  // namespace

int run_gcov_command(int argc, char** argv) {
  GcovOptions opts;
  switch (parse_gcov_options(argc, argv, opts)) {
    case ParseOutcome::kExitSuccess: return 0;
    case ParseOutcome::kExitFailure: return 1;
    case ParseOutcome::kRun: break;
  }
  // Many or large objects: mimalloc. From 256 KiB of notes and data, its
  // faster small allocations (a graph's records) pay for loading it: a
  // tinyxml2.cpp object (300 KiB) took ~5% less CPU with it.
  const std::vector<std::string> inputs = inputs_of(opts);
  util::use_fast_allocator_for(inputs, kFastAllocatorWorthIt);
  // Whose data this is, known before any object is read: the objects are
  // read in parallel, each notes file with the rights of the owners of all
  // (and of whoever owns a link to it), so that what one read may see never
  // depends on the order the threads took (util/foreign_data.h).
  for (const std::string& f : inputs) util::note_data_path(f);
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
