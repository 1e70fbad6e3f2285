// One breakpoint recording from the command line, for the overhead bench
// (bench/sample_breakpoint_overhead.sh) until `covkit sample record` runs
// it: prints what was planted and hit and how long the recorded run took.
//
//   covkit_sample_breakpoint_driver [--all-modules] [--no-libraries] -- PROG ARGS...
//
// Plans function entries of PROG only (of every module with --all-modules).
// Exit status: PROG's.
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "sample/breakpoint_recorder.h"

int main(int argc, char** argv) {
  using namespace covkit::sample;
  bool all = false;
  BreakpointOptions options;
  int i = 1;
  for (; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--all-modules") all = true;
    else if (a == "--no-libraries") options.libraries = false;
    else if (a == "--") { ++i; break; }
    else break;
  }
  if (i >= argc) {
    std::fprintf(stderr, "usage: %s [--all-modules] [--no-libraries] -- PROG ARGS...\n", argv[0]);
    return 2;
  }
  std::vector<std::string> command(argv + i, argv + argc);
  std::vector<std::string> only;
  std::error_code ec;
  if (!all) only.push_back(std::filesystem::canonical(command[0], ec).string());
  auto began = std::chrono::steady_clock::now();
  covkit::trace::ProgramEnd end;
  auto rec = record_breakpoints(command, function_entry_provider(only), options, &end);
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count();
  if (!rec) {
    std::fprintf(stderr, "%s\n", rec.error().message.c_str());
    return 127;
  }
  for (const std::string& w : rec->warnings) std::fprintf(stderr, "warning: %s\n", w.c_str());
  std::fprintf(stderr, "images %zu planted %zu hits %zu seconds %.4f\n", rec->images.size(), rec->planted.size(),
               rec->hits.size(), seconds);
  return end.signal ? 128 + end.signal : end.exit_status;  // as a shell reports it
}
