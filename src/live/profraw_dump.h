#pragma once
// `covkit live dump` and `live reset` of a process built with clang's
// source-based coverage (-fprofile-instr-generate -fcoverage-mapping): each
// module's .profraw, as its runtime would write it now, into `-o DIR` as
// DIR/<module>.<pid>.profraw (never replacing a file; two modules of one
// file name: the second gets DIR/<module>.<pid>.2.profraw), all or nothing
// (util::StagedTree); with --reset the counters are zeroed in the same stop,
// after the files are in place (profraw_capture.h). Without -o there is no
// file of the program's to add to: its runtime rewrites its .profraw at exit.
#include <memory>
#include <string>
#include <vector>

#include "live/live_dump.h"
#include "util/expected.h"
#include "util/unique_fd.h"

namespace covkit::live {

// Whether `pid` is a clang-instrumented process these functions handle
// (false: libgcov's path, or no coverage at all).
bool clang_process(pid_t pid);

Expected<DumpResult> dump_clang(const DumpRequest& request);
Expected<ResetResult> reset_clang(const ResetRequest& request);

// `covkit live report`: the profiles of a capture that changes nothing
// (stopped unless `stop` is false), written into `dir` (a private
// directory the caller made and removes), and the modules they belong to,
// as links in `dir` to the files the process maps, held open in `files`
// (checked against the mapping's device and inode): the report reads those,
// whatever the modules' paths name by then. Valid while `files` lives.
struct ClangReportInputs {
  std::vector<std::string> profiles, binaries;
  std::vector<std::shared_ptr<const util::UniqueFd>> files;
  std::vector<std::string> warnings;  // modules that could not be read, one line each
  ProcessSummary summary;
};
Expected<ClangReportInputs, SnapshotError> clang_report_inputs(pid_t pid, bool stop, const std::string& dir);
// Removes the files clang_report_inputs made (not `dir`).
void remove_report_inputs(const ClangReportInputs& in);

// The file name a module's dump gets: its file name, made plain, and the pid.
std::string profraw_dump_name(const std::string& module_path, pid_t pid);
// `name` (a profraw_dump_name), or, when an earlier module of the same dump
// took it (lib/a.so and lib32/a.so), NAME-less-.profraw.K.profraw with the
// first K from 2 that is free: no module's profile replaces another's.
std::string unique_dump_name(const std::string& name, const std::vector<std::string>& taken);

}  // namespace covkit::live
