// `covkit gcov`: gcov's options, gcov's run (report/gcov/gcov_run), gcov's exit.
#include "cli/gcov_command.h"

#if defined(__GLIBC__)
#include <malloc.h>
#endif

#include <cstdint>
#include <cstdio>
#include <cstdlib>

#include "cli/command_line.h"
#include "cli/gcov_options.h"
#include "model/gcov_session.h"
#include "report/gcov/gcov_run.h"
#include "util/foreign_data.h"
#include "util/sanitizer.h"
#include "util/short_run_heap.h"

namespace covkit::cli {

namespace {

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

// Notes and data of at least this many bytes are read with the short-run
// heap: a notes file of ~50 functions (GCC writes ~800 bytes a function).
constexpr uint64_t kShortRunHeapFrom = uint64_t(32) << 10;

}  // namespace

int run_gcov_command(int argc, char** argv) {
  GcovOptions opts;
  switch (parse_gcov_options(argc, argv, opts)) {
    case ParseOutcome::kExitSuccess: return 0;
    case ParseOutcome::kExitFailure: return 1;
    case ParseOutcome::kRun: break;
  }
  // glibc's malloc, never mimalloc (util/fast_allocator.h): measured
  // 2026-11-30 with bench/gcov_vs_covkit.sh (-b -c, alternated, load 6-14)
  // against mimalloc from 256 KiB of notes and data on, glibc's took 10%
  // less CPU on tinyxml2, 4% on jsoncpp and 2% on zstd (21 MB in its
  // largest invocation), each with a smaller peak RSS: its heap packs a
  // short run's blocks of all sizes into fewer fresh pages (tinyxml2.cpp
  // 482 page faults -> 385), a fresh page costing more here than
  // mimalloc's faster calls save; and no input is stat'ed to choose.
#if defined(__GLIBC__) && !COVKIT_ASAN
  // The heap grown a MiB at a time rather than 128 KiB: one brk instead of
  // eleven for tinyxml2.cpp (pages never written are no cost).
  mallopt(M_TOP_PAD, 1 << 20);
#endif
  const std::vector<std::string> inputs = inputs_of(opts);
  // Whose data this is, known before any object is read: the objects are
  // read in parallel, each notes file with the rights of the owners of all
  // (and of whoever owns a link to it), so that what one read may see never
  // depends on the order the threads took (util/foreign_data.h).
  uint64_t input_bytes = 0;
  for (const std::string& f : inputs) input_bytes += util::note_data_path(f);
  // Small blocks from the short-run heap (util/short_run_heap.h) once the
  // notes and data hold enough functions for its cheaper blocks to pay for
  // the fresh pages a heap of its own begins with (~4: CMake's one-function
  // compiler-id object ran 99 -> 103 page faults; tinyxml2.cpp, 293 KB of
  // notes, 8.67 M -> 8.20 M instructions, page faults equal).
  if (input_bytes >= kShortRunHeapFrom) util::use_short_run_heap();
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
