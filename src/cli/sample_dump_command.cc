// `covkit sample dump [DIR]`: a recording as text (src/sample/sample_text).
#include "cli/cli11.h"

#include <cstdio>
#include <string>

#include "cli/command_line.h"
#include "cli/output_options.h"
#include "cli/sample_command.h"
#include "sample/recording_input.h"
#include "sample/sample_text.h"
#include "sample/steps_to_branches.h"
#include "util/fast_allocator.h"

namespace covkit::cli {

int run_sample_dump(int argc, char** argv) {
  constexpr std::string_view kSampleDumpCommand = "covkit sample dump";
  CLI::App app{"Prints a recording of covkit sample record (or a perf.data, as sample\n"
               "import-perf would save it) as text: its settings, each process image with\n"
               "its executable mappings, each sample (thread, address, stack,\n"
               "single-stepped addresses), warnings and lost samples. Lines start with\n"
               "their kind (recording, command, image, mapping, sample, stack, steps,\n"
               "branches, warning, lost). The branches are those the steps imply, from the\n"
               "lengths of the instructions in the mapped files (disassembled).\n",
               std::string(kSampleDumpCommand)};
  std::string dir = "covkit-sample.data", out;
  bool no_steps = false;
  add_output_file_option(app, out, "the text", "standard output");
  app.add_option("DIR", dir, "Recording directory, or a perf.data file [default: ./covkit-sample.data]");
  app.add_flag("--no-steps", no_steps, "Leave out the single-stepped addresses");
  app.footer("Exit status: 0; 1 when DIR cannot be read (one line on stderr).\n"
             "\n"
             "Examples:\n"
             "  covkit sample dump                          ./covkit-sample.data\n"
             "  covkit sample dump rec --no-steps | less\n"
             "  covkit sample dump perf.data | grep -c '^sample'");
  if (auto status = parse_command_line(app, argc, argv)) return *status;
  util::use_fast_allocator();  // reads much, allocates much: mimalloc
  return run_guarded(kSampleDumpCommand, [&] {
    auto rec = sample::read_recording_input(dir);
    if (!rec) return fail(kSampleDumpCommand, dir, rec.error());
    if (!no_steps) sample::fill_branches(*rec);  // the taken branches the steps imply
    std::string text = sample::recording_text(*rec, !no_steps);
    return write_output_text(kSampleDumpCommand, out, text) ? 0 : 1;
  });
}

}  // namespace covkit::cli
