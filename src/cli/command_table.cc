#include "cli/command_table.h"

#include <cctype>

#include "cli/completion_command.h"
#include "cli/doctor_command.h"
#include "cli/blocks_command.h"
#include "cli/command_spec.h"
#include "cli/gcov_command.h"
#include "cli/gcov_options.h"
#include "cli/gprof_command.h"
#include "cli/live_command.h"
#include "cli/merge_command.h"
#include "cli/report_command.h"
#include "cli/sample_command.h"
#include "cli/trace_command.h"

namespace covkit::cli {

namespace {

constexpr CommandEntry kCommands[] = {
    {"gcov", "drop-in replacement for GCC's gcov: same options, same .gcov and JSON output", run_gcov_command,
     describe_gcov_command},
    {"report", "project-wide reports: lcov, Cobertura, SonarQube, Coveralls, JSON, HTML,\n"
               "Markdown, terminal; filters, merging, gates, diff coverage",
     run_report_command},
    {"merge", "add .gcda trees, lcov tracefiles or covkit JSON files together", run_merge_command},
    {"trace", "record every call of a program built with -finstrument-functions;\n"
              "profiles, call trees, call graphs, timelines, replay",
     run_trace_command},
    {"gprof", "gprof's flat profile and call graph of a program built with -pg (gmon.out),\n"
              "byte for byte; or the call graph drawn (DOT, SVG, Callgrind)",
     run_gprof_command, describe_gprof_command},
    {"live", "read (dump, reset) the coverage counters of running programs built with\n"
             "--coverage, without stopping them for long",
     run_live_command},
    {"sample", "coverage of programs built without --coverage: one-shot breakpoints\n"
               "(exact blocks) or sampled branch vectors; report, compare",
     run_sample_command},
    {"blocks", "coverage from -fsanitize-coverage's block hooks (trace-pc, trace-pc-guard,\n"
               "inline counters with pc-table) run with libcovkit-blocks",
     run_blocks_command},
    {"doctor", "what works on this machine (compilers, ptrace, perf events, branch\n"
               "records, kernel gcov, clock) and how to enable the rest",
     run_doctor_command},
    {"completion", "the shell completion script for bash, zsh or fish", run_completion_command},
};

}  // namespace

std::span<const CommandEntry> command_table() { return kCommands; }

bool started_as_gcov(std::string_view argv0) {
  std::string_view name = argv0.substr(argv0.rfind('/') + 1);
  // A version suffix, as GCC installs them: gcov-12, gcov-12.2.
  std::string_view bare = name;
  size_t dash = bare.rfind('-');
  if (dash != std::string_view::npos && dash + 1 < bare.size()) {
    bool version = true;
    for (char c : bare.substr(dash + 1)) version &= std::isdigit(static_cast<unsigned char>(c)) || c == '.';
    if (version) bare = bare.substr(0, dash);
  }
  return bare == "gcov" || bare.ends_with("-gcov");
}

}  // namespace covkit::cli
