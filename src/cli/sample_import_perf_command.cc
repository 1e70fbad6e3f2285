// `covkit sample import-perf FILE [--binary PATH]... [-o DIR]`: perf's
// samples, from perf.data (src/sample/perf_data_import) or perf script text
// (src/sample/perf_script_import), saved as a sample recording.
#include "cli/cli11.h"
#include <fmt/format.h>

#include <cstdio>
#include <string>
#include <vector>

#include "cli/command_line.h"
#include "cli/output_options.h"
#include "cli/sample_command.h"
#include "cli/version.h"
#include "format/perf_data_file.h"
#include "format/sample_recording_writer.h"
#include "sample/perf_data_import.h"
#include "sample/perf_script_import.h"
#include "sample/sample_recorder.h"
#include "sample/sample_recording_dir.h"
#include "util/fast_allocator.h"
#include "trace/recording_dir.h"
#include "util/file_io.h"
#include "util/foreign_data.h"
#include "util/printable.h"

namespace covkit::cli {

int run_sample_import_perf(int argc, char** argv) {
  constexpr std::string_view kSampleImportPerfCommand = "covkit sample import-perf";
  CLI::App app{"Saves the samples of a perf recording as a sample recording, for the same\n"
               "analysis as covkit sample record's. FILE is perf.data itself:\n"
               "\n"
               "  perf record -b -- ./prog                     # branch stacks, where there is a PMU\n"
               "  perf record -e cpu-clock --call-graph fp -- ./prog   # pc samples, anywhere\n"
               "  covkit sample import-perf perf.data -o rec\n"
               "\n"
               "Its MMAP records give every file's load address and its build-id table\n"
               "the files' build-ids, so PIE programs and shared libraries need nothing\n"
               "more. Branch stacks make a recording of mode perf, samples without them\n"
               "one of mode pc. Not read: perf.data written to a pipe (perf record -o -)\n"
               "and compressed records (perf record -z). The files another user's\n"
               "perf.data names are read with that user's rights, and the recording\n"
               "names that user for its reports (data_owners).\n"
               "\n"
               "FILE may also be the text of perf script (\"-\" reads standard input):\n"
               "\n"
               "  perf script -F pid,tid,ip,brstack > FILE\n"
               "\n"
               "which has absolute addresses and no load addresses: the mappings are the\n"
               "executable segments of each --binary at its link-time address, right for\n"
               "non-PIE programs (build with -no-pie). For PIE programs and shared\n"
               "libraries, print offsets in their files instead:\n"
               "\n"
               "  perf script -F pid,tid,ip,brstackoff,dso > FILE\n"
               "  covkit sample import-perf --brstackoff FILE --binary ./prog --binary ./libfoo.so\n"
               "\n"
               "Branches in files not given (libc, the vdso) are left out of the analysis.\n",
               std::string(kSampleImportPerfCommand)};
  std::string file, dir = "covkit-sample.data";
  std::vector<std::string> binaries;
  app.add_option("FILE", file, "perf.data, or perf script output")->required();
  app.add_option("--binary", binaries, "An ELF file the samples ran in (repeatable; perf script text only)")->type_name("PATH");
  add_output_dir_option(app, dir, "the recording", "./covkit-sample.data");
  app.footer(
      "Exit status: 0 when the recording was written; 1 on an error (FILE or a\n"
      "--binary cannot be read, a damaged perf.data record or a line that is not\n"
      "perf's syntax: the error names its offset or line).\n"
      "\n"
      "Examples:\n"
      "  covkit sample import-perf perf.data -o rec\n"
      "  covkit sample import-perf perf.txt --binary ./prog -o rec\n"
      "  perf script -F pid,tid,ip,brstackoff,dso | covkit sample import-perf --brstackoff - --binary ./prog\n"
      "  covkit sample report rec --html cov/");
  bool offsets = false;
  app.add_flag("--brstackoff", offsets,
               "The branch entries are perf's brstackoff: offsets in the file named after each (-F ...,brstackoff,dso; "
               "perf script text only)");
  if (auto status = parse_command_line(app, argc, argv)) return *status;
  util::use_fast_allocator();  // reads much, allocates much: mimalloc
  return run_guarded(kSampleImportPerfCommand, [&] {
    auto data = util::read_input_file_or_stdin(file);
    if (!data) return fail(kSampleImportPerfCommand, file, data.error());
    // Another user's perf.data names the files its samples ran in: they are
    // read with that user's rights, and the recording is no more open than
    // the perf.data (util/foreign_data.h).
    util::note_data_file(file, *data);
    const std::span<const uint8_t> bytes = data->bytes();
    const bool perf_data = format::is_perf_data(bytes);
    if (perf_data && (!binaries.empty() || offsets))
      std::fprintf(stderr, "%s: warning: %s is perf.data, whose records name every mapped file: --binary and "
                           "--brstackoff are for perf script text, ignored\n",
                   std::string(kSampleImportPerfCommand).c_str(), util::printable(file).c_str());
    auto rec = perf_data ? sample::import_perf_data(bytes)
                         : sample::import_perf_script(data->text(), binaries,
                                                      offsets ? sample::PerfAddresses::dso_offsets
                                                              : sample::PerfAddresses::absolute);
    if (!rec) return fail(kSampleImportPerfCommand, file, rec.error());
    rec->command = {"perf-import", file};
    rec->covkit_version = kVersion;
    auto target = sample::prepare_sample_dir(dir, "import-perf " + file);
    if (!target) return fail(kSampleImportPerfCommand, dir, target.error());
    if (auto ok = format::write_sample_recording(target->path(), *rec); !ok) return fail(kSampleImportPerfCommand, dir, ok.error());
    std::fprintf(stderr, "%s: %s\n", std::string(kSampleImportPerfCommand).c_str(),
                 sample::sample_summary_line(*rec, target->path()).c_str());
    if (auto kept = trace::keep_recording(target->path(),
                                          trace::RecorderFiles{"covkit sample record", sample::written_by_sampler});
        !kept)
      fail(kSampleImportPerfCommand, "", "warning: " + kept.error().message, 0);
    return 0;
  });
}

}  // namespace covkit::cli
