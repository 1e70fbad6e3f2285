// `covkit sample import-perf FILE [--binary PATH]... [-o DIR]`: perf's branch
// stacks (src/sample/perf_script_import) saved as a sample recording.
#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <cstdio>
#include <string>
#include <vector>

#include "cli/command_line.h"
#include "cli/sample_command.h"
#include "cli/version.h"
#include "format/sample_recording_writer.h"
#include "sample/perf_script_import.h"
#include "sample/sample_recorder.h"
#include "sample/sample_recording_dir.h"
#include "util/file_io.h"
#include "util/printable.h"

namespace covkit::cli {

int run_sample_import_perf(int argc, char** argv) {
  constexpr std::string_view kSampleImportPerfCommand = "covkit sample import-perf";
  CLI::App app{"Saves the branch stacks of a perf recording as a sample recording (mode perf),\n"
               "for the same analysis as covkit sample record's. FILE is the text of\n"
               "\n"
               "  perf record -b -- ./prog && perf script -F pid,tid,ip,brstack > FILE\n"
               "\n"
               "(\"-\" reads standard input). perf prints absolute addresses and no load\n"
               "addresses: the mappings are the executable segments of each --binary at its\n"
               "link-time address, right for non-PIE programs (build with -no-pie). For PIE\n"
               "programs and shared libraries, print offsets in their files instead:\n"
               "\n"
               "  perf script -F pid,tid,ip,brstackoff,dso > FILE\n"
               "  covkit sample import-perf --brstackoff FILE --binary ./prog --binary ./libfoo.so\n"
               "\n"
               "Branches in files not given (libc, the vdso) are left out of the analysis.",
               std::string(kSampleImportPerfCommand)};
  std::string file, dir = "covkit-sample.data";
  std::vector<std::string> binaries;
  app.add_option("FILE", file, "perf script output")->required();
  app.add_option("--binary", binaries, "An ELF file the samples ran in (repeatable)")->type_name("PATH");
  app.add_option("-o,--output", dir, "Recording directory [default: ./covkit-sample.data]")->type_name("DIR");
  app.footer(
      "Exit status: 0 when the recording was written; 1 on an error (FILE or a\n"
      "--binary cannot be read, a line is not perf's syntax: the error names it).\n"
      "\n"
      "Examples:\n"
      "  covkit sample import-perf perf.txt --binary ./prog -o rec\n"
      "  perf script -F pid,tid,ip,brstackoff,dso | covkit sample import-perf --brstackoff - --binary ./prog\n"
      "  covkit sample report rec --html cov/");
  bool offsets = false;
  app.add_flag("--brstackoff", offsets,
               "The branch entries are perf's brstackoff: offsets in the file named after each (-F ...,brstackoff,dso)");
  if (auto status = parse_command_line(app, argc, argv)) return *status;
  return run_guarded(kSampleImportPerfCommand, [&] {
    std::string text;
    if (file == "-") {
      char buf[65536];
      size_t n;
      while ((n = std::fread(buf, 1, sizeof buf, stdin)) > 0) text.append(buf, n);
    } else {
      auto data = util::read_file(file);
      if (!data) return fail(kSampleImportPerfCommand, file, data.error());
      text = data->text();
    }
    auto rec = sample::import_perf_script(text, binaries,
                                          offsets ? sample::PerfAddresses::dso_offsets : sample::PerfAddresses::absolute);
    if (!rec) return fail(kSampleImportPerfCommand, file, rec.error());
    rec->command = {"perf-import", file};
    rec->covkit_version = kVersion;
    auto target = sample::prepare_sample_dir(dir, "import-perf " + file);
    if (!target) return fail(kSampleImportPerfCommand, dir, target.error());
    if (auto ok = format::write_sample_recording(target->path(), *rec); !ok) return fail(kSampleImportPerfCommand, dir, ok.error());
    std::fprintf(stderr, "%s: %s\n", std::string(kSampleImportPerfCommand).c_str(),
                 sample::sample_summary_line(*rec, target->path()).c_str());
    return 0;
  });
}

}  // namespace covkit::cli
